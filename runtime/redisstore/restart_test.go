package redisstore_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/quiver-go/quiver/internal/redistest"
	"github.com/quiver-go/quiver/model"
	"github.com/quiver-go/quiver/runtime"
	"github.com/quiver-go/quiver/runtime/redisstore"
)

// TestAcknowledgedWritesSurviveARestart: on a redis-server with
// appendonly yes and appendfsync always, a writer puts checkpoints, saves
// sessions and takes checkpoints while the test kills and restarts the
// server in the middle (SIGKILL, as a crash). Every write that returned
// nil is there after the restart, and every checkpoint taken stays taken;
// writes that failed while the server was down are not counted.
func TestAcknowledgedWritesSurviveARestart(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, redistest.Options{AOF: true})
	s := open(t, srv, redisstore.WithPrefix(redistest.NewPrefix()))
	ctx := t.Context()
	const n = 120
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cp := func(i int) runtime.Checkpoint {
		return runtime.Checkpoint{RunID: fmt.Sprint("run", i), Agent: "desk", SuspendedAt: at.Add(time.Duration(i) * time.Second),
			State: []byte(fmt.Sprintf(`{"i":%d}`, i))}
	}

	var (
		mu                     sync.Mutex
		put, saved, taken      []int
		failedWrites, survived int
	)
	halfway := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			if i == n/2 {
				close(halfway) // the test restarts the server now, while writes go on
			}
			putErr := s.Put(ctx, cp(i))
			_, saveErr := s.Save(ctx, fmt.Sprint("session", i), []model.Message{model.UserMessage(fmt.Sprint("m", i))}, 0)
			var takeErr error = errors.New("not put")
			if putErr == nil && i%3 == 0 {
				_, takeErr = s.Take(ctx, fmt.Sprint("run", i), at)
			}
			mu.Lock()
			switch {
			case putErr == nil && i%3 == 0 && takeErr == nil:
				taken = append(taken, i)
			case putErr == nil && i%3 != 0:
				put = append(put, i)
			}
			if saveErr == nil {
				saved = append(saved, i)
			}
			if putErr != nil || saveErr != nil {
				failedWrites++
			}
			mu.Unlock()
		}
	}()
	<-halfway
	srv.Restart(t)
	<-done
	srv.Restart(t) // and once more after the last acknowledgement

	for _, i := range put {
		got, err := s.Take(ctx, fmt.Sprint("run", i), at)
		if err != nil || string(got.State) != fmt.Sprintf(`{"i":%d}`, i) {
			t.Errorf("acknowledged checkpoint run%d after the restart: %s, %v", i, got.State, err)
		}
		survived++
	}
	for _, i := range taken {
		if _, err := s.Take(ctx, fmt.Sprint("run", i), at); !errors.Is(err, runtime.ErrNotSuspended) {
			t.Errorf("run%d, taken before the restart, is back: %v", i, err)
		}
	}
	for _, i := range saved {
		got, err := s.Load(ctx, fmt.Sprint("session", i))
		if err != nil || got.Version != 1 || len(got.Messages) != 1 || got.Messages[0].TextContent() != fmt.Sprint("m", i) {
			t.Errorf("acknowledged session%d after the restart: %+v, %v", i, got, err)
		}
	}
	if len(put) == 0 || len(saved) == 0 || len(taken) == 0 {
		t.Fatalf("nothing acknowledged to check: %d puts, %d saves, %d takes", len(put), len(saved), len(taken))
	}
	t.Logf("%d checkpoints, %d sessions and %d takes acknowledged and found after the restart; %d rounds with a failed write (server down)",
		survived, len(saved), len(taken), failedWrites)
}
