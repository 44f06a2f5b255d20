package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"
)

// dataFolder is the --data flag every quiver command that keeps state on
// disk shares (quiver registry serve, quiver bench registry): its
// definition, its default and the folder's creation. A command registers
// it with addFlag and gets the folder with open.
type dataFolder struct {
	// path is --data as given, or its default ("" when there is none).
	path string
	// temporary marks a command that, without --data, works in a new
	// temporary folder removed afterwards (a benchmark) rather than in
	// the user's data folder.
	temporary bool
	// defaultErr says why there is no default data folder.
	defaultErr error
	flagGiven  bool
}

// addFlag registers --data on cmd. Its default is the user's data folder
// (defaultDataDir), or none for a temporary one.
func (d *dataFolder) addFlag(cmd *cobra.Command) {
	def, usage := "", "data folder `DIR`, created if missing (0700), for the store DIR/registry.db; a temporary folder, removed afterwards, when omitted"
	if !d.temporary {
		def, d.defaultErr = defaultDataDir()
		usage = "data folder `DIR`, created if missing (0700), for the store DIR/registry.db"
	}
	cmd.Flags().StringVar(&d.path, "data", def, usage)
	pre := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		d.flagGiven = c.Flags().Changed("data")
		if d.flagGiven && d.path == "" {
			return usagef(`--data "": name a folder`)
		}
		if pre != nil {
			return pre(c, args)
		}
		return nil
	}
}

// open creates the folder if it is missing (0700) and returns its absolute
// path, and remove, which deletes a temporary folder (and does nothing to
// any other). A folder every user may write to is refused
// (checkDataFolderMode).
func (d *dataFolder) open() (dir string, remove func(), err error) {
	if d.temporary && !d.flagGiven {
		dir, err := os.MkdirTemp("", "quiver-data-")
		if err != nil {
			return "", nil, fmt.Errorf("data folder: %w", err)
		}
		return dir, func() { _ = os.RemoveAll(dir) }, nil
	}
	if d.path == "" {
		return "", nil, fmt.Errorf("no default data folder (%v): pass --data DIR", d.defaultErr)
	}
	dir, err = filepath.Abs(d.path)
	if err != nil {
		return "", nil, fmt.Errorf("data folder %s: %w", d.path, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("data folder: %w", err)
	}
	if err := checkDataFolderMode(dir); err != nil {
		return "", nil, err
	}
	return dir, func() {}, nil
}

// defaultDataDir is the user's data folder for quiver.
func defaultDataDir() (string, error) {
	return dataDirFor(runtime.GOOS, os.Getenv)
}

// dataDirFor returns quiver's data folder on goos with the environment
// getenv reads: $XDG_DATA_HOME/quiver, or ~/.local/share/quiver when it is
// unset or relative (the XDG base directory rules), on Linux and the other
// Unix systems; ~/Library/Application Support/quiver on macOS;
// %LocalAppData%\quiver on Windows; $home/lib/quiver on Plan 9 (where
// os.UserConfigDir puts a user's files on the last three).
func dataDirFor(goos string, getenv func(string) string) (string, error) {
	need := func(name string) (string, error) {
		v := getenv(name)
		if v == "" {
			return "", fmt.Errorf("$%s is not set", name)
		}
		return v, nil
	}
	var base string
	switch goos {
	case "windows":
		dir, err := need("LocalAppData")
		if err != nil {
			return "", errors.New("%LocalAppData% is not set")
		}
		base = dir
	case "darwin", "ios":
		home, err := need("HOME")
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, "Library", "Application Support")
	case "plan9":
		home, err := need("home")
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, "lib")
	default:
		if x := getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
			base = x
			break
		}
		home, err := need("HOME")
		if err != nil {
			return "", fmt.Errorf("neither $XDG_DATA_HOME nor $HOME is set")
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "quiver"), nil
}
