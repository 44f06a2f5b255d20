package server

import (
	"context"
	"sync"
	"testing"
)

// Calls arriving together at a queue with room for three are let in three
// times, the rest told it is full, and a released admission makes room.
func TestQueueAdmitsCallsArrivingTogetherOneByOne(t *testing.T) {
	bus := NewLocalBus()
	var q queueLengths
	var mu sync.Mutex
	var admitted, full int
	var releases []func()
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, isFull, release, err := q.admit(context.Background(), bus, "tok", false, 3)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if isFull {
				full++
				return
			}
			admitted++
			releases = append(releases, release)
		}()
	}
	wg.Wait()
	if admitted != 3 || full != 17 {
		t.Fatalf("admitted %d and refused %d of 20 calls at a bound of 3, want 3 and 17", admitted, full)
	}
	releases[0]()
	releases[0]() // idempotent: frees one place, not two
	n, isFull, release, err := q.admit(context.Background(), bus, "tok", false, 3)
	if err != nil || isFull || n != 2 {
		t.Fatalf("after one release: n=%d full=%v err=%v, want 2 waiting and room", n, isFull, err)
	}
	release()
}
