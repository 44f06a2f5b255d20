package search

import "strconv"

// Field identifies one indexed part of a tool.
type Field uint8

// The indexed fields of a tool, in the order [Document.Fields] stores them.
const (
	// FieldName holds the tool's names: its key and aliases, split as
	// identifiers (startExport → start, export).
	FieldName Field = iota
	// FieldTitle holds the human title.
	FieldTitle
	// FieldDescription holds the description.
	FieldDescription
	// FieldKeywords holds search keywords and tags.
	FieldKeywords
	// FieldArgNames holds the payload's argument names.
	FieldArgNames
	// FieldArgDescriptions holds the payload's argument descriptions.
	FieldArgDescriptions
	// NumFields is the number of indexed fields.
	NumFields = 6
)

var fieldNames = [NumFields]string{"name", "title", "description", "keywords", "arg_names", "arg_descriptions"}

// String returns the field's lower-case name.
func (f Field) String() string {
	if int(f) < NumFields {
		return fieldNames[f]
	}
	return "field(" + strconv.Itoa(int(f)) + ")"
}

// Source is the text of one tool, as given to [NewDocument].
type Source struct {
	// Name is the key hits report: a tool ident, a wire name or a catalog
	// name. It must be unique within an [Index].
	Name string
	// Aliases are other names the name tiers match exactly (for example the
	// wire name and the bare tool name of an ident). They are indexed in
	// the name field too.
	Aliases []string
	// Title is the human title.
	Title string
	// Description is the tool description.
	Description string
	// Keywords are search keywords and tags.
	Keywords []string
	// Args are the payload's top-level arguments.
	Args []Arg
}

// Arg is one payload argument as seen by search.
type Arg struct {
	// Name is the argument's JSON name.
	Name string
	// Description is the argument's description, possibly empty.
	Description string
}
