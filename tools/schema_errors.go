package tools

import (
	"cmp"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// The JSON Schema library walks schemas and values in Go map order: the
// causes of a validation error come in a different order from one call to
// the next, and a schema with several problems that stop compilation (two
// unresolvable references, two duplicate anchors) fails on whichever the
// walk meets first. Errors a model or a user reads must not change between
// runs, so this file puts them in a fixed order:
//
//   - a validation error tree (a value against its schema, or a schema
//     against its metaschema) is sorted: at every level, causes by instance
//     location, then by their rendered text, except the causes of anyOf and
//     oneOf, which stay in alternative order (they are numbered); the
//     location of a propertyNames error, which the library may overwrite,
//     is worked out again;
//   - a schema that stops compilation reports the problem met first when
//     its ids and anchors, then its references, are enabled one at a time
//     in document order (keys sorted, parents first), within a bound (see
//     maxSearchCompiles).

// stabilizeTree corrects the instance locations the library may have
// overwritten (see nameLocation) and sorts e's tree (see above). instance
// is the value e is about.
func stabilizeTree(e *jsonschema.ValidationError, instance any) {
	repairLocations(e, instance, nil)
	sortTree(e)
}

// sortTree sorts the causes of every level of e, deepest first.
func sortTree(e *jsonschema.ValidationError) {
	for _, c := range e.Causes {
		sortTree(c)
	}
	if k, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
		slices.Sort(k.Properties)
	}
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		return // one cause per alternative, in the schema's order
	}
	if len(e.Causes) < 2 {
		return
	}
	type keyed struct {
		e    *jsonschema.ValidationError
		text string
	}
	ks := make([]keyed, len(e.Causes))
	for i, c := range e.Causes {
		ks[i] = keyed{c, c.Error()}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		return cmp.Or(slices.Compare(a.e.InstanceLocation, b.e.InstanceLocation), strings.Compare(a.text, b.text))
	})
	for i, k := range ks {
		e.Causes[i] = k.e
	}
}

// repairLocations corrects the instance location of every propertyNames
// error under e; parent is the location of e's parent.
func repairLocations(e *jsonschema.ValidationError, instance any, parent []string) {
	if k, ok := e.ErrorKind.(*kind.PropertyNames); ok {
		e.InstanceLocation = nameLocation(instance, parent, len(e.InstanceLocation), k.Property, e.SchemaURL)
		return // its causes are about the name, a string of its own
	}
	for _, c := range e.Causes {
		repairLocations(c, instance, e.InstanceLocation)
	}
}

// nameLocation returns the location of the object whose property name
// failed a propertyNames schema. The library gives such an error its
// validator's location slice without copying it, so a sibling validated
// later may overwrite it: only its length is sure. The object is the one
// of that depth below parent (the nearest ancestor error's location, which
// is copied) that has the property; when several have, the one the schema
// location names ("…/properties/<name>/propertyNames"), else parent.
func nameLocation(instance any, parent []string, depth int, property, schemaURL string) []string {
	parent = slices.Clone(parent)
	if depth <= len(parent) {
		return parent
	}
	base, ok := lookupValue(instance, parent)
	if !ok {
		return parent
	}
	var found [][]string
	var walk func(v any, loc []string)
	walk = func(v any, loc []string) {
		if len(loc) == depth {
			if m, ok := v.(map[string]any); ok {
				if _, has := m[property]; has {
					found = append(found, slices.Clone(loc))
				}
			}
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(v) {
				walk(v[k], append(loc, k))
			}
		case []any:
			for i, e := range v {
				walk(e, append(loc, strconv.Itoa(i)))
			}
		}
	}
	walk(base, parent)
	if len(found) > 1 {
		_, frag, _ := strings.Cut(schemaURL, "#")
		if sp, ok := splitPointer(frag); ok && len(sp) >= 3 && sp[len(sp)-1] == "propertyNames" && sp[len(sp)-3] == "properties" {
			found = slices.DeleteFunc(found, func(loc []string) bool { return loc[len(loc)-1] != sp[len(sp)-2] })
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	return parent
}

// lookupValue returns the value at loc within v.
func lookupValue(v any, loc []string) (any, bool) {
	for _, tok := range loc {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// splitPointer decodes a URL fragment holding a JSON pointer into tokens.
func splitPointer(frag string) ([]string, bool) {
	p, err := url.PathUnescape(frag)
	if err != nil || p != "" && !strings.HasPrefix(p, "/") {
		return nil, false
	}
	if p == "" {
		return nil, true
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
	}
	return toks, true
}

// isRootMetaschemaError reports whether err is the schema document failing
// its metaschema. The library checks that after reading the document's ids
// and anchors and before compiling anything, and reports every violation:
// which error it is does not depend on map order, only the order of its
// causes does.
func isRootMetaschemaError(err error) bool {
	var sve *jsonschema.SchemaValidationError
	return errors.As(err, &sve) && sve.URL == schemaURL+"#"
}

// stableCompileError returns, for doc, a schema whose compilation failed
// with err, the error to report: err itself, its tree sorted, when doc
// breaks its metaschema; else the first problem in document order (see
// firstCompileError).
func stableCompileError(doc any, err error) error {
	if !isRootMetaschemaError(err) {
		if d, first := firstCompileError(doc); first != nil {
			doc, err = d, first
		}
	}
	var (
		sve *jsonschema.SchemaValidationError
		ve  *jsonschema.ValidationError
		did *jsonschema.DuplicateIDError
		dan *jsonschema.DuplicateAnchorError
	)
	switch {
	case errors.As(err, &sve) && errors.As(sve.Err, &ve):
		_, frag, _ := strings.Cut(sve.URL, "#")
		var instance any
		if loc, ok := splitPointer(frag); ok {
			instance, _ = lookupValue(doc, loc)
		}
		stabilizeTree(ve, instance)
	case errors.As(err, &did):
		// Which of the two the walk met first follows map order.
		if did.Ptr2 < did.Ptr1 {
			did.Ptr1, did.Ptr2 = did.Ptr2, did.Ptr1
		}
	case errors.As(err, &dan):
		if dan.Ptr2 < dan.Ptr1 {
			dan.Ptr1, dan.Ptr2 = dan.Ptr2, dan.Ptr1
		}
	}
	return err
}

// refKeywords hold references: a reference is disabled by pointing it at
// its resource's root, which always resolves.
var refKeywords = []string{"$ref", "$dynamicRef", "$recursiveRef"}

// idKeywords name resources, anchors and drafts, which the library reads
// before compiling: one is disabled by deleting it.
var idKeywords = []string{"$id", "id", "$anchor", "$dynamicAnchor", "$schema"}

// maxSearchCompiles bounds how many times firstCompileError compiles a
// variant of a document, so that a refused schema costs at most that many
// compilations more than an accepted one. A schema written by hand needs a
// dozen or two (about log2(references) per reference on the way to the
// problem). A document built to need more — a chain of hundreds of
// references leading to several problems — gets a problem of the smallest
// failing variant found by then, which may be any of them.
const maxSearchCompiles = 64

// firstCompileError finds the problem that stops doc compiling first in
// document order, and returns it with the document it was found in: doc
// with the references (and, for problems with ids and anchors, the ids and
// anchors) not involved disabled. Whether a document compiles does not
// depend on map order, only which problem is reported does; so it enables
// the first sites (keys sorted, parents first) until the document fails,
// keeps the last one enabled, and repeats with the sites before it, until
// the enabled sites alone fail: they make one problem, reported whatever
// the order. It returns a nil error when doc compiles.
func firstCompileError(doc any) (any, error) {
	refs := findSites(doc, nil, refKeywords, nil)
	ids := findSites(doc, nil, idKeywords, nil)
	pointRoot := func(obj map[string]any, key string) { obj[key] = "#" }
	drop := func(obj map[string]any, key string) { delete(obj, key) }
	budget := maxSearchCompiles

	// Ids and anchors are read before anything compiles, and their problems
	// stop everything else: look for them with every reference disabled.
	noRefs := withSites(doc, refs, make([]bool, len(refs)), pointRoot)
	idDoc := func(on []bool) any { return withSites(noRefs, ids, on, drop) }
	idFails := func(on []bool) bool {
		err := compileDocument(idDoc(on))
		return err != nil && !isRootMetaschemaError(err)
	}
	if all := allSites(len(ids)); idFails(all) {
		d := idDoc(minimalSites(all, idFails, &budget))
		return d, compileDocument(d)
	}
	refDoc := func(on []bool) any { return withSites(doc, refs, on, pointRoot) }
	refFails := func(on []bool) bool { return compileDocument(refDoc(on)) != nil }
	all := allSites(len(refs))
	if !refFails(all) {
		return nil, nil
	}
	d := refDoc(minimalSites(all, refFails, &budget))
	return d, compileDocument(d)
}

// site is a keyword of an object of a schema document: where, and which.
type site struct {
	loc []string
	key string
}

// findSites appends to out every member of v, at any depth, named by one of
// keys and holding a string: the members of an object before those of its
// children, keys in sorted order.
func findSites(v any, loc, keys []string, out []site) []site {
	switch v := v.(type) {
	case map[string]any:
		ks := sortedKeys(v)
		for _, k := range ks {
			if _, ok := v[k].(string); ok && slices.Contains(keys, k) {
				out = append(out, site{slices.Clone(loc), k})
			}
		}
		for _, k := range ks {
			out = findSites(v[k], append(slices.Clip(loc), k), keys, out)
		}
	case []any:
		for i, e := range v {
			out = findSites(e, append(slices.Clip(loc), strconv.Itoa(i)), keys, out)
		}
	}
	return out
}

// withSites returns a copy of doc with the sites not on disabled.
func withSites(doc any, sites []site, on []bool, disable func(obj map[string]any, key string)) any {
	c := cloneJSONValue(doc)
	for i, s := range sites {
		if on[i] {
			continue
		}
		if v, ok := lookupValue(c, s.loc); ok {
			if obj, ok := v.(map[string]any); ok {
				disable(obj, s.key)
			}
		}
	}
	return c
}

func allSites(n int) []bool {
	on := make([]bool, n)
	for i := range on {
		on[i] = true
	}
	return on
}

// minimalSites returns the first minimal set of sites, in site order, for
// which fails holds; fails(all) must hold. It finds the shortest prefix
// of sites that fails, keeps its last site, and repeats on the sites before
// that one, the kept sites enabled, until the kept sites alone fail. The
// answer depends only on which sets fail. Each call of fails spends one of
// budget; when none is left, it returns the smallest set known to fail.
func minimalSites(all []bool, fails func(on []bool) bool, budget *int) []bool {
	kept := make([]bool, len(all))
	with := func(prefix int) []bool {
		on := slices.Clone(kept)
		for i := range prefix {
			on[i] = true
		}
		return on
	}
	try := func(on []bool) (failed, ok bool) {
		if *budget <= 0 {
			return false, false
		}
		*budget--
		return fails(on), true
	}
	limit := len(all) // invariant: fails(with(limit))
	for limit > 0 {
		failed, ok := try(kept)
		if !ok {
			return with(limit)
		}
		if failed {
			break
		}
		lo, hi := 1, limit // fails(with(hi))
		for lo < hi {
			mid := (lo + hi) / 2
			failed, ok := try(with(mid))
			if !ok {
				return with(hi)
			}
			if failed {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		kept[lo-1] = true
		limit = lo - 1
	}
	return kept
}
