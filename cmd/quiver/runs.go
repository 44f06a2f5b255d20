package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/boltstore"
	"github.com/quiver-go/quiver/runtime/redisstore"
)

// newRunsCommand returns quiver runs: an operator's view of a run log.
func newRunsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List, show and follow agent runs in a run log",
		Long: `The run log of an application that runs agents: every event of every run.
It is read from the data folder's runs.db (--data DIR, the store an
application opens with boltstore.Open(filepath.Join(DIR, boltstore.FileName)))
or from Redis (--redis URL, with --prefix when the application set one).

runs.db can be open in one process at a time: while the application runs,
read its log from Redis, where any number of processes follow runs live.`,
		Args: noArgs,
		RunE: helpWhenBare,
	}
	cmd.AddCommand(newRunsLsCommand(), newRunsShowCommand(), newRunsTailCommand())
	return cmd
}

// runLogFlags are --data, --redis and --prefix: where the run log is.
type runLogFlags struct {
	data   dataFolder
	redis  string
	prefix string
}

func (f *runLogFlags) addFlags(cmd *cobra.Command) {
	f.data.addFlag(cmd)
	cmd.Flags().Lookup("data").Usage = "data folder `DIR` holding the run log DIR/" + boltstore.FileName
	cmd.Flags().StringVar(&f.redis, "redis", "", "read the run log from Redis at `URL` (redis://host:port/db) instead of the data folder")
	cmd.Flags().StringVar(&f.prefix, "prefix", redisstore.DefaultPrefix, "the application's Redis key `PREFIX` (with --redis)")
	pre := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if f.redis != "" && c.Flags().Changed("data") {
			return usagef("--redis and --data name two run logs: give one")
		}
		if f.redis == "" && c.Flags().Changed("prefix") {
			return usagef("--prefix is a Redis key prefix: give it with --redis")
		}
		if pre != nil {
			return pre(c, args)
		}
		return nil
	}
}

// openedLog is a run log and where it is, for messages.
type openedLog struct {
	log   runtime.RunLog
	where string
	close func() error
}

// open opens the run log the flags name: Redis, or runs.db in the data
// folder (which must exist: reading creates nothing).
func (f *runLogFlags) open(ctx context.Context) (*openedLog, error) {
	if f.redis != "" {
		s, err := redisstore.Open(ctx, f.redis, redisstore.WithPrefix(f.prefix))
		if err != nil {
			return nil, err
		}
		return &openedLog{log: s.RunLog(), where: "Redis " + redactURL(f.redis) + " prefix " + f.prefix, close: s.Close}, nil
	}
	if f.data.path == "" {
		return nil, fmt.Errorf("no default data folder (%v): pass --data DIR or --redis URL", f.data.defaultErr)
	}
	path := filepath.Join(f.data.path, boltstore.FileName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no run log at %s: no application has kept runs there (it opens boltstore.Open(filepath.Join(DIR, boltstore.FileName)) and runtime.WithStore); pass its --data DIR, or --redis URL", path)
	}
	s, err := boltstore.Open(path, boltstore.WithOpenTimeout(2*time.Second))
	if errors.Is(err, boltstore.ErrInUse) {
		return nil, fmt.Errorf("%w\nrunning applications hold %s; stop it to read the log, or keep runs on Redis to follow them live (--redis URL)", err, boltstore.FileName)
	}
	if err != nil {
		return nil, err
	}
	return &openedLog{log: s.RunLog(), where: path, close: s.Close}, nil
}

// redactURL hides a URL's password for messages.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	return u.Redacted()
}
