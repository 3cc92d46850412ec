package store

// CheckDistinctField checks a distinct's field path as Distinct does (not
// empty, not starting with '$', no empty component), for engines that
// send a distinct elsewhere (package engine's MongoDB engine) and must
// refuse the same fields with the same errors.
func CheckDistinctField(field string) error { return checkDistinctField(field) }
