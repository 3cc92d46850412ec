package query

// sortSpec is a sort specification with keys computed once per document,
// for $sort, $sortArray and $top/$bottom. Keys follow the filter
// language's sort (sort.go): an array sorts by its smallest element
// ascending and its largest descending, a missing field as null, an empty
// array below null.
type sortSpec struct {
	paths []fieldPath
	desc  []bool
}

// compileSortSpec compiles a sort document; where names the stage or
// operator for messages. Unlike CompileSort, an empty spec is an error.
func compileSortSpec(where string, spec Value) (*sortSpec, error) {
	if spec.Kind() != Object {
		return nil, Errorf(Invalid, "%s: the sort specification must be an object, found %s", where, spec.TypeName())
	}
	if spec.Len() == 0 {
		return nil, Errorf(Invalid, "%s: the sort specification must have at least one sort key", where)
	}
	s := &sortSpec{}
	for _, f := range spec.Fields() {
		desc, err := sortDirection(f.Key, f.Value)
		if err != nil {
			return nil, err
		}
		if err := checkSortPath(f.Key); err != nil {
			return nil, err
		}
		s.paths = append(s.paths, parsePath(f.Key))
		s.desc = append(s.desc, desc)
	}
	return s, nil
}

// keys computes the sort keys of doc.
func (s *sortSpec) keys(doc Value) []sortVal {
	keys := make([]sortVal, len(s.paths))
	for i := range s.paths {
		keys[i] = sortKeyOf(doc, &s.paths[i], s.desc[i])
	}
	return keys
}

// compareKeys orders two documents by their keys, direction applied.
func (s *sortSpec) compareKeys(a, b []sortVal) int {
	for i, desc := range s.desc {
		c := compareSortVals(a[i], b[i])
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
