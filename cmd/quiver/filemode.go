package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"

	"github.com/quiver-go/quiver/internal/boundedinput"
)

// The permission checks of the files and folders the server commands
// trust: a data folder other users can write to (they could replace
// registry.db, or the key files quiver serve writes there), and a file of
// secrets other users can read or change (--keys, --key-file,
// --redis-url-file), and a file naming commands to start that other users
// can change (--upstreams), are refused at start, each with the chmod that
// fixes it.
//
// The rules, on Unix (and every system but Windows), on the mode bits of
// the file or folder a path names (symbolic links followed):
//
//   - a data folder must not be writable by others (o+w, mode&0o002): the
//     fix is chmod 700. A folder writable by its group is accepted: the
//     group is the owner's to choose.
//   - a file of secrets must give its group and others nothing
//     (mode&0o077 == 0): the fix is chmod 600.
//
// On Windows nothing is checked: its files are guarded by NTFS access
// control lists, not by mode bits, and Go reports a mode derived from the
// read-only attribute alone. Keep the data folder and secret files under
// the user's profile (%LocalAppData%, the default), whose ACL admits the
// user, SYSTEM and Administrators only.
const checkFileModes = runtime.GOOS != "windows"

// checkDataFolderMode refuses a data folder others can write to.
func checkDataFolderMode(dir string) error {
	if !checkFileModes {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("data folder: %w", err)
	}
	return dataFolderModeError(dir, fi.Mode())
}

// dataFolderModeError is the refusal of a data folder of mode m, or nil.
func dataFolderModeError(dir string, m fs.FileMode) error {
	if m.Perm()&0o002 == 0 {
		return nil
	}
	return fmt.Errorf("data folder %s has mode %04o: every user of the machine can write to it, and so replace the registry's store and key files: run chmod 700 %s", dir, m.Perm(), shellQuote(dir))
}

// checkSecretFileMode refuses a file of secrets, named by flag (--keys,
// --key-file…), that its group or others can read or change. A file it
// cannot stat passes: the read that follows says why it cannot be read.
func checkSecretFileMode(flag, file string) error {
	if !checkFileModes {
		return nil
	}
	fi, err := os.Stat(file)
	if err != nil {
		return nil
	}
	return secretFileModeError(flag, file, fi.Mode())
}

// secretFileModeError is the refusal of a file of secrets of mode m, or
// nil.
func secretFileModeError(flag, file string, m fs.FileMode) error {
	if m.Perm()&0o077 == 0 {
		return nil
	}
	return fmt.Errorf("%s %s has mode %04o: users other than its owner can read or change the secrets in it: run chmod 600 %s", flag, file, m.Perm(), shellQuote(file))
}

// checkCommandFileMode refuses a file, named by flag (--upstreams), that
// names commands quiver serve starts and that its group or others can
// change. A file it cannot stat passes: the read that follows says why.
func checkCommandFileMode(flag, file string) error {
	if !checkFileModes {
		return nil
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm()&0o022 == 0 {
		return nil
	}
	return fmt.Errorf("%s %s has mode %04o: other users can change it, and so the commands quiver serve starts: run chmod go-w %s", flag, file, fi.Mode().Perm(), shellQuote(file))
}

// maxSecretFile bounds a file holding one secret (--key-file,
// --redis-url-file).
const maxSecretFile = 64 << 10

// readSecretFile reads the secret file given with flag holds: its mode
// checked (checkSecretFileMode), its content less one trailing newline
// ("\n" or "\r\n"), which echo and editors add. An empty secret is an
// error.
func readSecretFile(flag, file string) (string, error) {
	if err := checkSecretFileMode(flag, file); err != nil {
		return "", err
	}
	r, err := boundedinput.Open(file, maxSecretFile)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	s := string(b)
	if t, ok := strings.CutSuffix(s, "\r\n"); ok {
		s = t
	} else {
		s = strings.TrimSuffix(s, "\n")
	}
	if s == "" {
		return "", fmt.Errorf("%s %s is empty: write the secret in it", flag, file)
	}
	return s, nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%,=", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
