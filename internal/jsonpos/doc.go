// Package jsonpos locates an encoding/json decoding error in the text
// decoded, as line and column, so that a configuration file's error can
// say where to look, as catalog errors do.
package jsonpos
