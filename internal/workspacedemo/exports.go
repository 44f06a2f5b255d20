package workspacedemo

import (
	"errors"
	"fmt"
	"strings"
)

// The export tools (design: exports.go). An export snapshots its source's
// row count when it starts (queued) and advances one state each time its
// status is read — running (half its rows written), then done — so a
// client sees it progress deterministically. No file is written: the download link
// names the file the export would be.

// export is one export and its progress.
type export struct {
	id          string
	source      string
	format      string
	compression string
	rows        int64
	status      string // queued, running, done or cancelled
	written     int64
}

type startExportArgs struct {
	Table         string `json:"table"`
	View          string `json:"view"`
	SQL           string `json:"sql"`
	Format        string `json:"format"`
	IncludeHeader *bool  `json:"includeHeader"`
	Compression   string `json:"compression"`
	Label         string `json:"label"`
}

type startExportResult struct {
	ExportID string `json:"exportId"`
	Status   string `json:"status"`
}

// exportSource resolves the one source of an export: its description and
// row count.
func (w *Workspace) exportSource(a startExportArgs) (string, int64, error) {
	given := 0
	for _, s := range []string{a.Table, a.View, a.SQL} {
		if strings.TrimSpace(s) != "" {
			given++
		}
	}
	if given != 1 {
		return "", 0, errors.New("give exactly one of table, view or sql as the source of the export")
	}
	switch {
	case a.Table != "":
		t, err := w.table(a.Table)
		if err != nil {
			return "", 0, err
		}
		return t.name, int64(len(t.rows)), nil
	case a.View != "":
		v, err := w.findView(a.View)
		if err != nil {
			return "", 0, err
		}
		d, err := w.viewDataset(v)
		if err != nil {
			return "", 0, err
		}
		return "saved view " + v.name, int64(len(d.rows)), nil
	}
	d, err := w.queryDataset(a.SQL)
	if err != nil {
		return "", 0, err
	}
	return "query", int64(len(d.rows)), nil
}

func (w *Workspace) startExport(a startExportArgs) (any, error) {
	if a.IncludeHeader != nil && a.Format != "csv" && a.Format != "xlsx" {
		return nil, fmt.Errorf("includeHeader applies to csv and xlsx exports, not %s: omit it", a.Format)
	}
	src, rows, err := w.exportSource(a)
	if err != nil {
		return nil, err
	}
	e := &export{id: w.nextID("export"), source: src, format: a.Format, compression: firstNonEmpty(a.Compression, "none"), rows: rows, status: "queued"}
	w.exports = append(w.exports, e)
	return startExportResult{ExportID: e.id, Status: e.status}, nil
}

func (w *Workspace) proposeStartExport(a startExportArgs) (any, error) {
	src, _, err := w.exportSource(a)
	if err != nil {
		return nil, err
	}
	return w.propose(firstNonEmpty(a.Label, fmt.Sprintf("Export %s as %s", src, strings.ToUpper(a.Format)))), nil
}

type exportIDArgs struct {
	ExportID string `json:"exportId"`
}

type exportStatusResult struct {
	ExportID    string   `json:"exportId"`
	Status      string   `json:"status"`
	Progress    *float64 `json:"progress,omitempty"`
	Rows        *int64   `json:"rows,omitempty"`
	DownloadURL string   `json:"downloadUrl,omitempty"`
}

// findExport returns the export of that id.
func (w *Workspace) findExport(id string) (*export, error) {
	for _, e := range w.exports {
		if e.id == id {
			return e, nil
		}
	}
	return nil, fmt.Errorf("no export %q: use the exportId startExport returned", id)
}

func (w *Workspace) getExportStatus(a exportIDArgs) (any, error) {
	e, err := w.findExport(a.ExportID)
	if err != nil {
		return nil, err
	}
	switch e.status {
	case "queued":
		e.status, e.written = "running", e.rows/2
	case "running":
		e.status, e.written = "done", e.rows
	}
	progress, written := 1.0, e.written
	if e.status != "done" && e.rows > 0 {
		progress = float64(e.written) / float64(e.rows)
	} else if e.status != "done" {
		progress = 0
	}
	res := exportStatusResult{ExportID: e.id, Status: e.status, Progress: &progress, Rows: &written}
	if e.status == "done" {
		res.DownloadURL = e.downloadURL()
	}
	return res, nil
}

// downloadURL names the export's file.
func (e *export) downloadURL() string {
	name := e.id + "." + e.format
	switch e.compression {
	case "gzip":
		name += ".gz"
	case "zip":
		name += ".zip"
	}
	return "https://downloads.example.com/exports/" + name
}

type cancelExportResult struct {
	ExportID  string `json:"exportId"`
	Cancelled bool   `json:"cancelled"`
}

func (w *Workspace) cancelExport(a exportIDArgs) (any, error) {
	e, err := w.findExport(a.ExportID)
	if err != nil {
		return nil, err
	}
	running := e.status == "queued" || e.status == "running"
	if running {
		e.status = "cancelled"
	}
	return cancelExportResult{ExportID: e.id, Cancelled: running}, nil
}
