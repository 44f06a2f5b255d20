// Package redistest runs real redis-server processes for tests: every test
// that needs Redis starts one with [Start].
//
//	srv := redistest.Start(t, redistest.Options{})
//	s, err := redisstore.Open(ctx, srv.URL())
//
// Each server is a redis-server subprocess on a free loopback port, with
// everything on its command line (no config file): --bind 127.0.0.1,
// --protected-mode yes, --dir a temporary folder of the test, --save ""
// (no RDB snapshots) and --appendonly no; with [Options].AOF it runs
// --appendonly yes --appendfsync always, so every write Redis acknowledged
// is on disk and survives [Server.Kill] and [Server.Restart]. Start returns
// once the server answers PING; the test's cleanup kills it. Servers of
// parallel tests are independent: each has its own port and folder.
//
// redis-server must be on PATH. When it is not, Start fails the test (it
// never skips it): run ./scripts/test, which installs it with apt-get.
package redistest
