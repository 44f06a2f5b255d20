package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit statuses of the command. Every command follows one policy: 0 when
// it did what was asked; 2 when it was invoked wrongly (an unknown command
// or flag, a missing or extra argument, a flag value that is malformed or
// out of range, flags that exclude each other), before any input is read;
// 1 for every other failure (an unreadable or invalid file, a name the
// catalog does not have, an evaluation that left queries out).
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// usageError is a mistake in how the command was invoked: a missing or
// extra argument, an unknown, malformed or conflicting flag. run maps it to
// exitUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// flagError turns an error of the flag parser into a usageError, rewording
// a malformed value so that it says what the flag wants, e.g.
// `--limit "ten": want an integer` rather than the parser's
// `invalid argument "ten" for "--limit" flag: strconv.ParseInt: parsing "ten": invalid syntax`.
func flagError(_ *cobra.Command, err error) error {
	if iv, ok := errors.AsType[*pflag.InvalidValueError](err); ok {
		f := iv.GetFlag()
		return usagef("--%s %q: want %s", f.Name, iv.GetValue(), valueKind(f.Value.Type()))
	}
	return &usageError{msg: err.Error()}
}

// valueKind describes the values of a flag of the given pflag type.
func valueKind(typ string) string {
	switch {
	case strings.HasPrefix(typ, "int"), strings.HasPrefix(typ, "uint"):
		return "an integer"
	case typ == "bool":
		return "true or false"
	case strings.HasPrefix(typ, "float"):
		return "a number"
	case typ == "duration":
		return "a duration such as 30s or 2m"
	}
	return "a value of type " + typ
}

// exitCode maps an error returned by a command to the exit status.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, new(*usageError)):
		return exitUsage
	}
	return exitError
}

// printError writes err to w, each of its lines prefixed with "quiver: "
// (errors.Join puts each joined error on a line of its own), and, for a
// usage error, where to read the usage of cmd.
func printError(w io.Writer, cmd *cobra.Command, err error) {
	for line := range strings.Lines(err.Error()) {
		fmt.Fprintf(w, "quiver: %s\n", strings.TrimSuffix(line, "\n"))
	}
	if exitCode(err) == exitUsage && cmd != nil {
		fmt.Fprintf(w, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
}
