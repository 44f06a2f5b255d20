package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/quiver-go/quiver/internal/redisconn"
	"github.com/quiver-go/quiver/registry/node"
	"github.com/quiver-go/quiver/registry/server"
	"github.com/quiver-go/quiver/registry/stores"
)

// nodes are the registry nodes of a run.
type nodes struct {
	urls     []string
	file     string
	describe string
	stops    []func() error
}

// startNodes starts o.Nodes registry nodes on o's store, each on a free
// loopback port. On Redis the run's keys go under a prefix of its own.
func startNodes(ctx context.Context, o Options, runPrefix string) (_ *nodes, err error) {
	ns := &nodes{}
	defer func() {
		if err != nil {
			_ = ns.stop()
		}
	}()
	cfg := stores.Config{Kind: stores.Embedded, Dir: o.Dir}
	if o.Store == stores.Redis {
		cfg = stores.Config{Kind: stores.Redis, RedisURL: o.RedisURL, Prefix: "quiver:bench:" + runPrefix + ":"}
		ns.stops = append(ns.stops, func() error { return deleteKeys(o.RedisURL, cfg.Prefix) })
	}
	for range o.Nodes {
		n, err := node.Start(ctx, node.Config{Store: cfg, Server: server.Config{Logger: o.Logger}})
		if err != nil {
			return nil, err
		}
		ns.stops = append(ns.stops, n.Close)
		ns.file, ns.describe = n.File, n.Describe
		ns.urls = append(ns.urls, n.URL)
	}
	return ns, nil
}

// stop stops the nodes and closes their stores, last started first.
func (ns *nodes) stop() error {
	var errs []error
	for i := len(ns.stops) - 1; i >= 0; i-- {
		errs = append(errs, ns.stops[i]())
	}
	ns.stops = nil
	return errors.Join(errs...)
}

// deleteKeys deletes the run's keys from Redis.
func deleteKeys(url, prefix string) error {
	rdb, err := redisconn.NewClient(url)
	if err != nil {
		return err
	}
	defer rdb.Close()
	ctx := context.Background()
	iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
		if len(keys) == 1000 {
			if err := rdb.Unlink(ctx, keys...).Err(); err != nil {
				return fmt.Errorf("bench: delete the run's keys: %w", err)
			}
			keys = keys[:0]
		}
	}
	if err := iter.Err(); err != nil {
		return fmt.Errorf("bench: list the run's keys: %w", err)
	}
	if len(keys) > 0 {
		return rdb.Unlink(ctx, keys...).Err()
	}
	return nil
}
