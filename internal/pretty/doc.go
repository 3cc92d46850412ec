// Package pretty prints a value.Value the way mongosh 2.x prints
// documents, for people at a terminal: keys without quotes when they are
// identifiers, strings in single quotes, ObjectId('…'), ISODate('…'),
// Long('…') for integers outside int32, Binary.createFromBase64('…', n),
// and objects or arrays on one line when they fit in the width, else one
// field a line, indented.
//
// The output is JavaScript that mongosh (and omgdb shell) reads back to
// the same value. Colour (ANSI escapes, as mongosh uses on a terminal) is
// off unless Options.Color is set; callers set it only when writing to a
// terminal. The package is a leaf: it imports only query/value.
package pretty
