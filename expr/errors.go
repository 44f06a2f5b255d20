package expr

import "goa.design/goa/v3/eval"

// result returns verr, or nil when it holds no error (a typed nil would
// read as an error).
func result(verr *eval.ValidationErrors) error {
	if len(verr.Errors) == 0 {
		return nil
	}
	return verr
}
