package main

import (
	"bufio"
	"io"
	"strings"

	"github.com/quiver-go/quiver/runtime"
)

// sseEvent is one event of a text/event-stream, its fields as sent.
type sseEvent struct {
	ID   string
	Type string
	Data string
}

// sseReader reads the events of a text/event-stream: "field: value" lines
// up to a blank line, comments (lines starting with ':', the server's
// keep-alives) skipped, several data lines joined with "\n".
type sseReader struct {
	lines *bufio.Scanner
}

// newSSEReader reads events from r. A line may hold a whole event record
// (runtime.MaxRecordBytes) and its field name; a longer one fails next.
func newSSEReader(r io.Reader) *sseReader {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 0, 64<<10), runtime.MaxRecordBytes+64)
	return &sseReader{lines: lines}
}

// next returns the stream's next event; io.EOF when the stream ends, which
// drops an event not yet ended by its blank line, as the SSE standard
// says.
func (s *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	var data []string
	for s.lines.Scan() {
		line := s.lines.Text()
		if line == "" {
			if data == nil { // no data: nothing to dispatch
				ev = sseEvent{}
				continue
			}
			ev.Data = strings.Join(data, "\n")
			return ev, nil
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.ID = value
		case "event":
			ev.Type = value
		case "data":
			data = append(data, value)
		}
	}
	if err := s.lines.Err(); err != nil {
		return sseEvent{}, err
	}
	return sseEvent{}, io.EOF
}
