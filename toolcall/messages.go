package toolcall

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quiver-go/quiver/tools"
)

// The failures the pipeline answers with. Each model-facing message is
// written here once (a test in internal/sourceguard checks): the runtime,
// the MCP server and later executors all answer with these.

// InvalidPayload is the failure of arguments that break the tool's schema.
func InvalidPayload(err error) *Failure {
	return &Failure{Code: KindInvalidPayload, Recovery: RecoveryCorrectCall,
		Message: "The arguments do not match the tool's schema; fix them and call again:\n" + err.Error()}
}

// RefusedPayload is the failure of arguments refused before they could be
// parsed as the tool's payload (too large, too deep, duplicate keys, not
// JSON): what is wrong and where, never a value.
func RefusedPayload(err error) *Failure {
	msg := err.Error()
	var pe *tools.PayloadError
	if errors.As(err, &pe) {
		lines := make([]string, len(pe.Problems))
		for i, p := range pe.Problems {
			lines[i] = p.String()
		}
		msg = strings.Join(lines, "\n")
	}
	return &Failure{Code: KindInvalidPayload, Recovery: RecoveryCorrectCall,
		Message: "Not run: the arguments were refused; fix them and call again:\n" + msg}
}

// NotJSON is the failure of arguments that are not JSON at all.
func NotJSON() *Failure {
	return &Failure{Code: KindInvalidPayload, Recovery: RecoveryCorrectCall,
		Message: "Not run: the arguments are not valid JSON; send one JSON object such as {\"name\": \"value\"}."}
}

// MissingFields is the failure of arguments that lack only required
// fields; ve lists them.
func MissingFields(ve *tools.ValidationError) *Failure {
	return &Failure{Code: KindMissingFields, Recovery: RecoveryCorrectCall,
		Message: "The call lacks required fields:\n" + ve.Error()}
}

// InjectionFailed is the failure of a call whose injected field had no
// value.
func InjectionFailed(err error) *Failure {
	return &Failure{Code: KindInjectionFailed, Recovery: RecoveryFinish, Message: err.Error()}
}

// ToolFailed is the failure of an executor's plain error.
func ToolFailed(err error) *Failure {
	return &Failure{Code: KindToolError, Recovery: RecoveryReplan, Message: "The tool failed: " + err.Error()}
}

// NoResult is the failure of an executor that returned neither a result
// nor an error.
func NoResult() *Failure {
	return &Failure{Code: KindToolError, Recovery: RecoveryReplan, Message: "The tool returned no result."}
}

// InvalidResult is the failure of a result that breaks the tool's
// contract.
func InvalidResult(err error) *Failure {
	return &Failure{Code: KindInvalidResult, Recovery: RecoveryReplan,
		Message: "The tool returned a result that breaks its own contract: " + err.Error()}
}

// MissingBounds is the failure of a bounded tool that returned no bounds.
func MissingBounds(tool tools.Ident) *Failure {
	return missingBounds(tool, "no bounds")
}

// NotBoundedObject is the failure of a bounded tool whose result, read
// for its canonical bounds fields (BoundsFromResult), is not an object.
func NotBoundedObject(tool tools.Ident) *Failure {
	return missingBounds(tool, "a result that is not an object with its bounds fields")
}

// NoReturnedCount is the failure of a bounded tool whose result lacks the
// canonical "returned" count.
func NoReturnedCount(tool tools.Ident) *Failure {
	return missingBounds(tool, fmt.Sprintf("no %q count in its result", tools.BoundsFieldReturned))
}

func missingBounds(tool tools.Ident, what string) *Failure {
	return &Failure{Code: KindMissingBounds, Recovery: RecoveryReplan,
		Message: fmt.Sprintf("Bounded tool %s returned %s.", tool, what)}
}

// Unavailable is the failure of a call to a tool that is not available;
// name is the name the caller used. Nothing ran.
func Unavailable(name string) *Failure {
	return &Failure{Code: KindUnavailable, Recovery: RecoveryReplan,
		Message: fmt.Sprintf("Tool %s is not available any more; nothing ran.", name)}
}

// Timeout is the failure of a call stopped at its time limit.
func Timeout(limit time.Duration) *Failure {
	return &Failure{Code: KindTimeout, Recovery: RecoveryReplan,
		Message: fmt.Sprintf("The tool did not finish within its time limit of %s and was stopped; ask for less or use another tool.", limit)}
}

// CouldNotRun is the failure of a call whose execution could not be
// started or finished by the engine (not the tool's own error).
func CouldNotRun(err error) *Failure {
	return &Failure{Code: KindToolError, Recovery: RecoveryReplan, Message: "The tool could not run: " + err.Error()}
}

// NotPermitted is the failure of a call the caller may not make; why says
// what stops it and is shown as is. Nothing ran.
func NotPermitted(why string) *Failure {
	return &Failure{Code: KindNotPermitted, Recovery: RecoveryReplan, Message: "Refused: " + why + " Nothing ran."}
}

// KeyLimit is the failure of a call refused because its caller (a
// registry key, an MCP credential or session) has as many calls open,
// queued or running, as it may have at once. Nothing ran; the same call
// is admitted once one of the caller's calls finishes.
func KeyLimit() *Failure {
	return &Failure{Code: KindKeyLimit, Recovery: RecoveryReplan,
		Message: "Not run: you have as many calls open (queued or running) as you may have at once; nothing ran. Wait for one of your calls to finish before calling again, and make fewer calls at once."}
}

// NotInActiveSet is the failure of a deferred tool called before a search
// found it; refusal is the catalog's message (catalog.Refusal).
func NotInActiveSet(refusal string) *Failure {
	return &Failure{Code: KindNotInActiveSet, Recovery: RecoveryCorrectCall, Message: refusal}
}

// Denied is the failure of a call a person denied (when its tool declares
// no denied-result template).
func Denied() *Failure {
	return &Failure{Code: KindDenied, Recovery: RecoveryReplan, Message: "The user denied this call."}
}
