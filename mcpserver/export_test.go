package mcpserver

// ValidateSchema lets the end-to-end tests (package mcpserver_test) check
// values against schemas as the unit tests do.
var ValidateSchema = validateSchema
