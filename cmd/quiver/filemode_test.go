package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-go/quiver/internal/redistest"
)

// skipWithoutModes skips a test of the mode checks where there are none.
func skipWithoutModes(t *testing.T) {
	t.Helper()
	if !checkFileModes {
		t.Skip("no mode bits to check on Windows")
	}
}

// writeMode writes content to a new file of dir with mode perm (chmod,
// so that the umask does not narrow it), replacing any file of that name,
// and returns its path.
func writeMode(t *testing.T, dir, name, content string, perm fs.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	_ = os.Remove(path) // it may be read-only
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	modeKeyA     = "mode-test-key-a-0123456789"
	modeKeysJSON = `{"keys": [{"name": "reader", "key": "` + modeKeyA + `", "role": "consumer"}]}`
)

// TestServersRefuseAWorldWritableDataFolder: quiver registry serve and
// quiver serve refuse a data folder every user may write to (0777, and
// 1777 as /tmp is), naming it, its mode and the chmod; a folder its group
// may write to is accepted.
func TestServersRefuseAWorldWritableDataFolder(t *testing.T) {
	skipWithoutModes(t)
	for _, perm := range []fs.FileMode{0o777, 0o777 | fs.ModeSticky} {
		data := filepath.Join(t.TempDir(), "data")
		if err := os.Mkdir(data, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(data, perm); err != nil {
			t.Fatal(err)
		}
		want := "quiver: data folder " + data + " has mode 0777: every user of the machine can write to it, and so replace the registry's store and key files: run chmod 700 " + data + "\n"
		for _, args := range [][]string{
			{"registry", "serve", "--addr", "127.0.0.1:0", "--data", data},
			{"serve", "--addr", "127.0.0.1:0", "--data", data},
		} {
			out := quiver(t, args...)
			if out.code != exitError || out.stderr != want || out.stdout != "" {
				t.Errorf("%v on mode %v: exit %d, stdout %q, stderr\n got: %q\nwant: %q", args, perm, out.code, out.stdout, out.stderr, want)
			}
		}
		if _, err := os.Stat(filepath.Join(data, "registry.db")); err == nil {
			t.Errorf("the refused folder %v got a store", perm)
		}
	}

	group := filepath.Join(t.TempDir(), "group")
	if err := os.Mkdir(group, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(group, 0o770); err != nil {
		t.Fatal(err)
	}
	startServing(t, "registry", "serve", "--addr", "127.0.0.1:0", "--data", group).stop()
}

// TestServersRefuseAKeysFileOthersCanRead: quiver registry serve's --keys
// and quiver serve's --keys (client credentials) are refused when their
// group or others may read or change them, naming the file, its mode and
// the chmod; 0600 and 0400 are accepted.
func TestServersRefuseAKeysFileOthersCanRead(t *testing.T) {
	skipWithoutModes(t)
	dir := t.TempDir()
	for _, perm := range []fs.FileMode{0o644, 0o640, 0o604, 0o620} {
		keys := writeMode(t, dir, "keys.json", modeKeysJSON, perm)
		clients := writeMode(t, dir, "clients.json", `{"clients":[{"name":"ide","key":"`+modeKeyA+`","tier":"full"}]}`, perm)
		for _, c := range []struct {
			args []string
			file string
		}{
			{[]string{"registry", "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--keys", keys}, keys},
			{[]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--keys", clients}, clients},
		} {
			want := "quiver: --keys " + c.file + " has mode " + octal(perm) + ": users other than its owner can read or change the secrets in it: run chmod 600 " + c.file + "\n"
			out := quiver(t, c.args...)
			if out.code != exitError || out.stderr != want || out.stdout != "" {
				t.Errorf("%v on mode %04o: exit %d, stdout %q, stderr\n got: %q\nwant: %q", c.args[:2], perm, out.code, out.stdout, out.stderr, want)
			}
		}
	}
	for _, perm := range []fs.FileMode{0o600, 0o400} {
		keys := writeMode(t, dir, "keys.json", modeKeysJSON, perm)
		startServing(t, "registry", "serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--keys", keys).stop()
	}
}

// octal is perm as the messages print it, e.g. 0644.
func octal(perm fs.FileMode) string {
	const digits = "01234567"
	p := uint32(perm.Perm())
	return string([]byte{'0', digits[p>>6&7], digits[p>>3&7], digits[p&7]})
}

// TestModeRules: which modes each check refuses, and how a path is quoted
// in the chmod it suggests.
func TestModeRules(t *testing.T) {
	for m, refused := range map[fs.FileMode]bool{
		0o700: false, 0o755: false, 0o770: false, 0o775: false,
		0o777: true, 0o703: true, 0o1777: true, 0o2777: true,
	} {
		if err := dataFolderModeError("/d", fs.ModeDir|m); (err != nil) != refused {
			t.Errorf("data folder mode %04o: %v, want refused %v", m, err, refused)
		}
	}
	for m, refused := range map[fs.FileMode]bool{
		0o600: false, 0o400: false, 0o700: false, 0o200: false,
		0o640: true, 0o604: true, 0o620: true, 0o602: true, 0o610: true, 0o666: true,
	} {
		if err := secretFileModeError("--keys", "/k", m); (err != nil) != refused {
			t.Errorf("secret file mode %04o: %v, want refused %v", m, err, refused)
		}
	}
	for in, want := range map[string]string{
		"/var/lib/quiver":        "/var/lib/quiver",
		"/home/u/my data":        "'/home/u/my data'",
		"/tmp/it's":              `'/tmp/it'\''s'`,
		"C:/Users/u/quiver-data": "C:/Users/u/quiver-data",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestKeyFile: --key-file gives the client commands the key, less one
// trailing newline, over $QUIVER_REGISTRY_KEY; with --key it is a usage
// error; a file others can read, an empty one or a missing one fail.
func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	keys := writeMode(t, dir, "keys.json", modeKeysJSON, 0o600)
	url := startServing(t, "registry", "serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data"), "--keys", keys).url(t)

	t.Setenv(envRegistryKey, "wrong-key-0123456789abcdef")
	for name, content := range map[string]string{"lf": modeKeyA + "\n", "crlf": modeKeyA + "\r\n", "bare": modeKeyA} {
		file := writeMode(t, dir, name+".key", content, 0o600)
		out := quiver(t, "registry", "ls", "--registry", url, "--key-file", file).mustSucceed(t)
		if !strings.Contains(out.stdout, url) {
			t.Errorf("--key-file (%s): stdout %q", name, out.stdout)
		}
	}
	// One newline only is dropped: the key with two is not the key.
	twoLines := writeMode(t, dir, "two.key", modeKeyA+"\n\n", 0o600)
	if out := quiver(t, "registry", "ls", "--registry", url, "--key-file", twoLines); out.code != exitUsage || !strings.Contains(out.stderr, "--key-file "+twoLines+": an API key has no spaces") {
		t.Errorf("two trailing newlines: exit %d, stderr %q", out.code, out.stderr)
	}

	good := filepath.Join(dir, "lf.key")
	out := quiver(t, "registry", "ls", "--registry", url, "--key", modeKeyA, "--key-file", good)
	if out.code != exitUsage || out.stderr != "quiver: --key and --key-file both give the API key: pass one (--key-file keeps it out of the process list)\nRun 'quiver registry ls --help' for usage.\n" || out.stdout != "" {
		t.Errorf("--key and --key-file: exit %d, stdout %q, stderr %q", out.code, out.stdout, out.stderr)
	}
	if out := quiver(t, "registry", "ls", "--registry", url, "--key-file", ""); out.code != exitUsage || !strings.HasPrefix(out.stderr, `quiver: --key-file "": name the file`) {
		t.Errorf(`--key-file "": exit %d, stderr %q`, out.code, out.stderr)
	}
	empty := writeMode(t, dir, "empty.key", "\n", 0o600)
	if out := quiver(t, "registry", "ls", "--registry", url, "--key-file", empty); out.code != exitError || out.stderr != "quiver: --key-file "+empty+" is empty: write the secret in it\n" {
		t.Errorf("empty key file: exit %d, stderr %q", out.code, out.stderr)
	}
	missing := filepath.Join(dir, "missing.key")
	if out := quiver(t, "registry", "ls", "--registry", url, "--key-file", missing); out.code != exitError || !strings.HasPrefix(out.stderr, "quiver: --key-file: open "+missing+": ") {
		t.Errorf("missing key file: exit %d, stderr %q", out.code, out.stderr)
	}
	if checkFileModes {
		loose := writeMode(t, dir, "loose.key", modeKeyA+"\n", 0o644)
		if out := quiver(t, "registry", "ls", "--registry", url, "--key-file", loose); out.code != exitError || out.stderr != "quiver: --key-file "+loose+" has mode 0644: users other than its owner can read or change the secrets in it: run chmod 600 "+loose+"\n" {
			t.Errorf("key file 0644: exit %d, stderr %q", out.code, out.stderr)
		}
	}
}

// TestRedisURLFile: --redis-url-file gives quiver registry serve its Redis
// URL; with --redis-url it is a usage error; $QUIVER_REDIS_URL, which may
// carry a password, is not printed by --help as a default.
func TestRedisURLFile(t *testing.T) {
	rs := redistest.Start(t, redistest.Options{})
	dir := t.TempDir()
	file := writeMode(t, dir, "redis.url", rs.URL()+"\n", 0o600)
	t.Setenv(envRedisURL, "redis://127.0.0.1:1/0") // nothing listens: the file wins
	s := startServing(t, "registry", "serve", "--addr", "127.0.0.1:0", "--store", "redis", "--redis-url-file", file, "--redis-prefix", "urlfile-test")
	if !strings.Contains(s.stdout.String(), "store     redis redis://"+rs.Addr+"/0") {
		t.Errorf("banner:\n%s", s.stdout.String())
	}
	s.stop()

	out := quiver(t, "registry", "serve", "--store", "redis", "--redis-url", rs.URL(), "--redis-url-file", file)
	if out.code != exitUsage || !strings.HasPrefix(out.stderr, "quiver: --redis-url and --redis-url-file both give the Redis URL: pass one") {
		t.Errorf("both: exit %d, stderr %q", out.code, out.stderr)
	}
	if checkFileModes {
		loose := writeMode(t, dir, "loose.url", rs.URL(), 0o640)
		out = quiver(t, "registry", "serve", "--store", "redis", "--redis-url-file", loose)
		if out.code != exitError || !strings.HasPrefix(out.stderr, "quiver: --redis-url-file "+loose+" has mode 0640: ") {
			t.Errorf("loose file: exit %d, stderr %q", out.code, out.stderr)
		}
	}

	t.Setenv(envRedisURL, "redis://:hunter2-password@127.0.0.1:6379/0")
	for _, args := range [][]string{{"registry", "serve", "--help"}, {"bench", "registry", "--help"}} {
		if out := quiver(t, args...); strings.Contains(out.stdout+out.stderr, "hunter2") {
			t.Errorf("%v prints $%s:\n%s", args, envRedisURL, out.stdout)
		}
	}
}

// TestServeBannerSuggestsRegistryLs: quiver serve's banner shows how to
// reach its registry, never with a key on the command line: registry ls
// with its data folder, which finds the registry and the consumer key
// (0600) there, and the command it shows works; so does the admin key
// file with --key-file.
func TestServeBannerSuggestsRegistryLs(t *testing.T) {
	data := t.TempDir()
	s := startServing(t, "serve", "--addr", "127.0.0.1:0", "--data", data)
	banner := s.stdout.String()
	regURL := bannerRegistryURL(t, banner)
	want := " registry ls --data " + data + "\n"
	if !strings.Contains(banner, want) || strings.Contains(banner, "$(cat") || strings.Contains(banner, "--key ") {
		t.Fatalf("the banner does not suggest %q:\n%s", want, banner)
	}
	readKeyFile(t, filepath.Join(data, consumerKeyFile))
	out := quiver(t, "registry", "ls", "--data", data).mustSucceed(t)
	if !strings.Contains(out.stdout, "registry  "+regURL) || !strings.Contains(out.stdout, "workspace") {
		t.Errorf("registry ls --data:\n%s", out.stdout)
	}
	out = quiver(t, "registry", "ls", "--registry", regURL, "--key-file", filepath.Join(data, adminKeyFile)).mustSucceed(t)
	if !strings.Contains(out.stdout, "workspace") {
		t.Errorf("registry ls with the admin key file:\n%s", out.stdout)
	}
}
