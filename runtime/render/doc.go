// Package render turns tool contracts and results into the text people and
// models read: call and result display hints (CallHint, ResultHint),
// confirmation prompts and denied results (ConfirmationPrompt,
// DeniedResult) and system reminders (Reminders, ReminderQueue). The
// bounds fields merged into a bounded result are projected by the
// tool-call pipeline (toolcall.ProjectBounds).
//
// Templates are Go text/template strings parsed with tools.ParseTemplate:
// missingkey=error and the functions of tools.TemplateFuncs (join, count,
// truncate, json, quote). Hint templates read typed Go values (Go field
// names) or, for runtime-compiled tools, maps of JSON keys; confirmation
// templates read the payload's JSON keys. Hints never fail a run: a hint
// that cannot render falls back to the tool's title (call hints) or to no
// hint (result hints). Confirmation rendering returns
// errors, prefixed "render:", that name the tool and the template.
//
// Invariants: nothing here mutates its inputs or keeps state between calls
// except ReminderQueue, which is plain data the runtime stores in run state
// so a replayed run emits the same reminders.
package render
