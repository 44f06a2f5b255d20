package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/quiver-go/quiver/runtime"
)

// client follows one run's events over SSE, as a program would: plain
// net/http, Last-Event-ID to resume.
type client struct {
	// authed sends the bearer token; anon sends none.
	authed, anon *http.Client
	// url is where the run's events are served; path is what the client
	// prints of it (no port).
	url, path string
	print     *printer
}

// errStreamTooShort is returned when the run's stream ended before the
// run on maxConnections connections.
var errStreamTooShort = errors.New("the run's stream kept ending before the run did")

// received is one event the client received: its sequence number (its SSE
// id) and its record as sent.
type received struct {
	seq  int64
	data string
}

// get asks for the run's events after the sequence number after (sent as
// Last-Event-ID when positive), with the token when withToken is set.
func (c *client) get(ctx context.Context, after int64, withToken bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if after > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(after, 10))
	}
	if withToken {
		return c.authed.Do(req)
	}
	return c.anon.Do(req)
}

// follow reads the run's events from resp, the answer to the first
// request, to the run's end: it drops the connection after dropAfter
// events and reconnects from the last id it holds, as it does when a
// stream ends before the run. It returns the events received, in order.
func (c *client) follow(ctx context.Context, resp *http.Response) ([]received, error) {
	var got []received
	for conn := 1; ; conn++ {
		if conn > 1 {
			var last int64
			if len(got) > 0 {
				last = got[len(got)-1].seq
			}
			var err error
			if resp, err = c.get(ctx, last, true); err != nil {
				return got, err
			}
			c.print.note("client: GET %s with Last-Event-ID: %d -> %s", c.path, last, resp.Status)
		} else {
			c.print.note("client: -> %s, %s", resp.Status, resp.Header.Get("Content-Type"))
		}
		if resp.StatusCode == http.StatusNoContent { // the run ended at the cursor
			resp.Body.Close()
			return got, nil
		}
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			resp.Body.Close()
			return got, fmt.Errorf("GET %s: %s: %s", c.path, resp.Status, body)
		}
		ended, err := c.read(resp.Body, &got, conn == 1)
		resp.Body.Close()
		switch {
		case err != nil:
			return got, err
		case ended:
			c.print.note("client: the stream ended with the run, after event %d", got[len(got)-1].seq)
			return got, nil
		case conn == maxConnections:
			return got, errStreamTooShort
		}
	}
}

// read appends the events of one stream to got, printing each, until the
// stream ends — or, when drop is set, until got holds dropAfter events.
// It reports whether the run ended (its terminal event was received).
func (c *client) read(body io.Reader, got *[]received, drop bool) (ended bool, err error) {
	events := newSSEReader(body)
	for {
		ev, err := events.next()
		if errors.Is(err, io.EOF) {
			if len(*got) > 0 {
				c.print.note("client: the stream ended early, after event %d", (*got)[len(*got)-1].seq)
			}
			return false, nil
		}
		if err != nil {
			return false, err
		}
		e, err := decode(ev)
		if err != nil {
			return false, err
		}
		*got = append(*got, received{seq: e.Head().Seq, data: ev.Data})
		c.print.event(e)
		if terminal(e) {
			return true, nil
		}
		if drop && len(*got) == dropAfter {
			c.print.note("client: drops the connection after event %d, on purpose", e.Head().Seq)
			return false, nil
		}
	}
}

// decode returns the event an SSE event carries: its data is the event's
// record (runtime.MarshalEvent), its id the record's sequence number.
func decode(ev sseEvent) (runtime.Event, error) {
	rec, err := runtime.UnmarshalEvent([]byte(ev.Data))
	if err != nil {
		return nil, err
	}
	if ev.ID != strconv.FormatInt(rec.Seq, 10) {
		return nil, fmt.Errorf("an SSE event with id %q carries event %d", ev.ID, rec.Seq)
	}
	return rec.Event()
}

// terminal reports whether e ends its run.
func terminal(e runtime.Event) bool {
	switch e.(type) {
	case runtime.RunCompleted, runtime.RunFailed, runtime.RunCancelled, runtime.RunInterrupted:
		return true
	}
	return false
}

// sameEvents reports how got differs from the run log's events: each must
// follow the one before by sequence number from 1 and be its record, as
// the log encodes it, and none may be missing.
func sameEvents(got []received, logged []runtime.EventRecord) error {
	for i, g := range got {
		if g.seq != int64(i+1) {
			return fmt.Errorf("the client's event %d has sequence number %d: an event is missing or repeated", i+1, g.seq)
		}
		if i >= len(logged) {
			return fmt.Errorf("the client holds event %d; the run log ends at %d", g.seq, len(logged))
		}
		want, err := runtime.MarshalEvent(logged[i])
		if err != nil {
			return err
		}
		if g.data != string(want) {
			return fmt.Errorf("event %d differs from the run log's:\n got %s\nwant %s", g.seq, g.data, want)
		}
	}
	if len(got) != len(logged) {
		return fmt.Errorf("the client holds %d events; the run log has %d", len(got), len(logged))
	}
	return nil
}
