package enginetest

import "github.com/omgdb/omgdb/query/errs"

const (
	sortArray   = "jstests/core/query/sort/sort_array.js"
	typeArray   = "jstests/core/query/type/type_array.js"
	nullQuery   = "jstests/core/query/null_query_semantics.js"
	distArray   = "jstests/core/query/distinct/distinct_array1.js"
	numberLong  = "jstests/core/query/number/numberlong.js"
	decimalCmp  = "manual: reference/bson-type-comparison-order (numeric types)"
	elemMatch   = "jstests/core/query/elemmatch/elemmatch_object.js"
	sortOrder   = "manual: reference/bson-type-comparison-order"
	findManual  = "manual: reference/method/db.collection.find"
	aggManual   = "manual: reference/operator/aggregation"
	omgdbErrors = "omgdb: SPEC.md section 1 (errors)"
)

// Cases are the conformance suite: every engine must give exactly these
// results.
var Cases = []Case{
	// Collections and indexes.
	{Name: "collections", From: findManual, Op: Collections,
		Want: []string{`"bounds"`, `"decimals"`, `"dist"`, `"elems"`, `"mixed"`, `"nested"`, `"nulls"`, `"nums"`, `"people"`, `"sortarr"`, `"sortxy"`, `"types"`}},
	{Name: "indexes", From: "manual: reference/method/db.collection.getIndexes", Op: Indexes, Coll: "people", Want: []string{
		`{"name":"_id_","key":{"_id":{"$numberInt":"1"}},"unique":true,"sparse":false}`,
		`{"name":"address.city_1_age_1","key":{"address.city":{"$numberInt":"1"},"age":{"$numberInt":"1"}},"unique":false,"sparse":true}`,
		`{"name":"age_-1","key":{"age":{"$numberInt":"-1"}},"unique":false,"sparse":false}`,
		`{"name":"name_1","key":{"name":{"$numberInt":"1"}},"unique":true,"sparse":false}`,
	}},
	{Name: "indexes_only_id", From: "manual: reference/method/db.collection.getIndexes", Op: Indexes, Coll: "nums", Want: []string{
		`{"name":"_id_","key":{"_id":{"$numberInt":"1"}},"unique":true,"sparse":false}`,
	}},

	// Find: filter, projection, sort, skip, limit.
	{Name: "find_all_in_id_order", From: findManual, Coll: "people", Project: `{"name":1}`,
		Want: []string{`{"_id":1,"name":"ana"}`, `{"_id":2,"name":"bob"}`, `{"_id":3,"name":"cy"}`, `{"_id":4,"name":"dee"}`}},
	{Name: "find_dotted_exclude_id", From: findManual, Coll: "people", Filter: `{"address.city":"Paris"}`, Project: `{"name":1,"_id":0}`,
		Want: []string{`{"name":"ana"}`, `{"name":"cy"}`}},
	{Name: "find_exclusion_projection", From: findManual, Coll: "people", Filter: `{"_id":2}`, Project: `{"tags":0,"address":0}`,
		Want: []string{`{"_id":2,"name":"bob","age":25}`}},
	{Name: "find_sort_skip_limit", From: findManual, Coll: "people", Sort: `{"age":-1}`, Skip: 1, Limit: 2, Project: `{"_id":1}`,
		Want: []string{`{"_id":1}`, `{"_id":2}`}},
	{Name: "find_sort_missing_last_desc", From: sortOrder, Coll: "people", Sort: `{"age":-1}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":3}`, `{"_id":1}`, `{"_id":2}`, `{"_id":4}`}},
	{Name: "find_array_contains", From: findManual, Coll: "people", Filter: `{"tags":"b"}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":1}`, `{"_id":2}`}},
	{Name: "find_all", From: "manual: reference/operator/query/all", Coll: "people", Filter: `{"tags":{"$all":["a","b"]}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":1}`}},
	{Name: "find_size_zero", From: "manual: reference/operator/query/size", Coll: "people", Filter: `{"tags":{"$size":0}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":3}`}},
	{Name: "find_or", From: "manual: reference/operator/query/or", Coll: "people", Filter: `{"$or":[{"age":{"$lt":26}},{"name":"dee"}]}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":2}`, `{"_id":4}`}},
	{Name: "find_in_regex", From: "manual: reference/operator/query/in", Coll: "people", Filter: `{"name":{"$in":[{"$regularExpression":{"pattern":"^b","options":""}},"cy"]}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":2}`, `{"_id":3}`}},
	{Name: "find_regex_operator", From: "manual: reference/operator/query/regex", Coll: "people", Filter: `{"name":{"$regex":"^A","$options":"i"}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":1}`}},
	{Name: "find_nothing_matches", From: findManual, Coll: "people", Filter: `{"age":{"$gt":100}}`, Want: []string{}},

	// Sorting by arrays (sort_array.js).
	{Name: "sort_array_asc_min_element", From: sortArray, Coll: "sortarr", Filter: `{"a":{"$gte":2}}`, Sort: `{"a":1}`, Project: `{"_id":1,"a":1}`,
		Want: []string{`{"_id":1,"a":[8,4,-1]}`, `{"_id":0,"a":[3,0,1]}`}},
	{Name: "sort_array_desc_max_element", From: sortArray, Coll: "sortarr", Sort: `{"a":-1}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":1}`, `{"_id":0}`}},
	{Name: "sort_array_compound_mixed", From: sortArray, Coll: "sortxy", Sort: `{"x.y":1,"x.z":-1}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":0}`, `{"_id":1}`}},
	{Name: "sort_array_compound_mixed_reverse", From: sortArray, Coll: "sortxy", Sort: `{"x.y":-1,"x.z":1}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":0}`, `{"_id":1}`}},
	{Name: "aggregate_sort_array", From: sortArray, Op: Aggregate, Coll: "sortarr",
		Pipeline: `[{"$match":{"a":{"$gte":2}}},{"$sort":{"a":1}},{"$project":{"_id":1,"a":1}}]`,
		Want:     []string{`{"_id":1,"a":[8,4,-1]}`, `{"_id":0,"a":[3,0,1]}`}},

	// Types: $type on arrays, equality across numeric types, type order.
	{Name: "type_long_or_string_code", From: typeArray, Coll: "types", Filter: `{"a":{"$type":["long",2]}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":2}`, `{"_id":3}`, `{"_id":5}`}},
	{Name: "type_long_or_array", From: typeArray, Coll: "types", Filter: `{"a":{"$type":["long","array"]}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":2}`, `{"_id":4}`, `{"_id":5}`}},
	{Name: "type_number", From: typeArray, Coll: "types", Filter: `{"a":{"$type":"number"}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":0}`, `{"_id":1}`, `{"_id":2}`, `{"_id":5}`}},
	{Name: "equal_across_numeric_types", From: typeArray, Coll: "types", Filter: `{"a":{"$numberInt":"1"}}`,
		Want: []string{`{"_id":0,"a":{"$numberDouble":"1"}}`, `{"_id":1,"a":{"$numberInt":"1"}}`, `{"_id":2,"a":{"$numberLong":"1"}}`, `{"_id":5,"a":[{"$numberInt":"1"},"str"]}`}},
	{Name: "sort_type_order_empty_array_first", From: sortOrder, Coll: "types", Sort: `{"a":1}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":4}`, `{"_id":6}`, `{"_id":0}`, `{"_id":1}`, `{"_id":2}`, `{"_id":5}`, `{"_id":3}`}},
	{Name: "sort_bson_type_order", From: sortOrder, Coll: "mixed", Sort: `{"v":1}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":6}`, `{"_id":1}`, `{"_id":5}`, `{"_id":7}`, `{"_id":2}`, `{"_id":3}`, `{"_id":4}`, `{"_id":12}`, `{"_id":11}`}},
	{Name: "sort_minkey_maxkey", From: sortOrder, Coll: "bounds", Sort: `{"v":-1}`,
		Want: []string{`{"_id":1,"v":{"$maxKey":1}}`, `{"_id":2,"v":"z"}`, `{"_id":4,"v":null}`, `{"_id":3,"v":{"$minKey":1}}`}},
	{Name: "gt_minkey", From: sortOrder, Op: Count, Coll: "bounds", Filter: `{"v":{"$gt":{"$minKey":1}}}`, Want: []string{`{"$numberLong":"3"}`}},
	{Name: "find_returns_every_type", From: sortOrder, Coll: "mixed", Filter: `{"_id":{"$in":[2,4,7,11,12]}}`, Want: []string{
		`{"_id":2,"v":{"$oid":"5f0000000000000000000001"}}`,
		`{"_id":4,"v":{"$date":{"$numberLong":"86400000"}}}`,
		`{"_id":7,"v":{"$binary":{"base64":"AQI=","subType":"00"}}}`,
		`{"_id":11,"v":{"$regularExpression":{"pattern":"^a","options":"i"}}}`,
		`{"_id":12,"v":{"$timestamp":{"t":5,"i":1}}}`,
	}},
	{Name: "type_timestamp", From: "manual: reference/operator/query/type", Coll: "mixed", Filter: `{"v":{"$type":"timestamp"}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":12}`}},
	{Name: "type_bracketing_gt_null", From: sortOrder, Coll: "mixed", Filter: `{"v":{"$gte":"a"}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":1}`}},

	// Mixed numeric types, compared exactly.
	{Name: "long_exact_gt", From: numberLong, Coll: "nums", Filter: `{"x":{"$gt":{"$numberLong":"9007199254740992"}}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":1}`}},
	{Name: "int_equals_long", From: numberLong, Coll: "nums", Filter: `{"x":5}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":4}`}},
	{Name: "numbers_bracketed_from_strings", From: sortOrder, Coll: "nums", Filter: `{"x":{"$lt":6}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":4}`, `{"_id":5}`}},
	{Name: "sort_mixed_numbers", From: numberLong, Coll: "nums", Sort: `{"x":1}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":4}`, `{"_id":5}`, `{"_id":2}`, `{"_id":1}`, `{"_id":6}`}},
	{Name: "type_decimal", From: "manual: reference/operator/query/type", Coll: "decimals", Filter: `{"x":{"$type":"decimal"}}`,
		Want: []string{`{"_id":2,"x":{"$numberDecimal":"9007199254740993.5"}}`, `{"_id":3,"x":{"$numberDecimal":"-1"}}`, `{"_id":5,"x":{"$numberDecimal":"0.10"}}`}},
	{Name: "decimal_gt_long", From: decimalCmp, Coll: "decimals", Filter: `{"x":{"$gt":{"$numberLong":"9007199254740993"}}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":2}`}},
	{Name: "decimal_equals_double", From: decimalCmp, Coll: "decimals", Filter: `{"x":{"$numberDouble":"0.5"}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":4}`}},
	{Name: "sort_decimals_among_numbers", From: decimalCmp, Coll: "decimals", Sort: `{"x":1}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":3}`, `{"_id":5}`, `{"_id":4}`, `{"_id":1}`, `{"_id":2}`}},
	{Name: "sum_int_and_long_exact", From: aggManual + "/sum", Op: Aggregate, Coll: "nums",
		Pipeline: `[{"$match":{"x":{"$type":["int","long"]}}},{"$group":{"_id":null,"s":{"$sum":"$x"}}}]`,
		Want:     []string{`{"_id":null,"s":{"$numberLong":"9007199254740998"}}`}},

	// null and missing.
	{Name: "null_matches_missing_and_null_elements", From: nullQuery, Coll: "nulls", Filter: `{"a":null}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":"a_null"}`, `{"_id":"a_value_array_all_nulls"}`, `{"_id":"a_value_array_with_null"}`, `{"_id":"no_a"}`}},
	{Name: "ne_null", From: nullQuery, Op: Count, Coll: "nulls", Filter: `{"a":{"$ne":null}}`, Want: []string{`{"$numberLong":"9"}`}},
	{Name: "exists_false", From: nullQuery, Coll: "nulls", Filter: `{"a":{"$exists":false}}`, Want: []string{`{"_id":"no_a"}`}},
	{Name: "in_null_and_number", From: nullQuery, Coll: "nulls", Filter: `{"a":{"$in":[null,4]}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":"a_null"}`, `{"_id":"a_number"}`, `{"_id":"a_value_array_all_nulls"}`, `{"_id":"a_value_array_no_nulls"}`, `{"_id":"a_value_array_with_null"}`, `{"_id":"no_a"}`}},
	// MongoDB 8.x semantics, which omgdb follows (docs/differences.md);
	// the jstests file at fcv 9.0 (SERVER-36681) no longer matches arrays
	// of scalars and empty arrays here.
	{Name: "dotted_ne_null", From: nullQuery + " (MongoDB 8.x)", Coll: "nulls", Filter: `{"a.b":{"$ne":null}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":"a_empty_array"}`, `{"_id":"a_object_array_no_b_nulls"}`, `{"_id":"a_subobject_b_not_null"}`,
			`{"_id":"a_value_array_all_nulls"}`, `{"_id":"a_value_array_no_nulls"}`, `{"_id":"a_value_array_with_null"}`}},
	{Name: "dotted_eq_null_objects", From: nullQuery, Coll: "nulls", Filter: `{"a.b":null,"a":{"$type":"object"}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":"a_empty_subobject"}`, `{"_id":"a_object_array_some_b_missing"}`, `{"_id":"a_object_array_some_b_nulls"}`, `{"_id":"a_subobject_b_null"}`}},
	{Name: "elemmatch_eq_null", From: nullQuery, Coll: "nulls", Filter: `{"a":{"$elemMatch":{"$eq":null}}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":"a_value_array_all_nulls"}`, `{"_id":"a_value_array_with_null"}`}},
	{Name: "null_projection_keeps_null", From: nullQuery, Coll: "nulls", Filter: `{"_id":{"$in":["a_null","no_a"]}}`, Project: `{"_id":0,"a":1}`,
		Want: []string{`{"a":null}`, `{}`}},

	// $elemMatch against plain conditions; numeric path components.
	{Name: "elemmatch_one_element", From: elemMatch, Coll: "elems", Filter: `{"r":{"$elemMatch":{"k":"a","v":2}}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":2}`}},
	{Name: "plain_conditions_any_elements", From: elemMatch, Coll: "elems", Filter: `{"r.k":"a","r.v":2}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":1}`, `{"_id":2}`}},
	{Name: "numeric_path_component", From: findManual, Coll: "elems", Filter: `{"r.1.v":1}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":2}`}},

	// Arrays of arrays.
	{Name: "nested_array_whole_value", From: "manual: reference/operator/query/eq (array values)", Coll: "nested", Filter: `{"a":[1,2]}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":2}`}},
	{Name: "nested_empty_array_element", From: nullQuery, Coll: "nested", Filter: `{"a":[]}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":1}`}},
	{Name: "nested_elemmatch_array", From: "manual: reference/operator/query/elemMatch", Coll: "nested", Filter: `{"a":{"$elemMatch":{"$type":"array"}}}`, Project: `{"_id":1}`,
		Want: []string{`{"_id":1}`, `{"_id":2}`, `{"_id":3}`}},

	// Count.
	{Name: "count_all", From: "manual: reference/method/db.collection.countDocuments", Op: Count, Coll: "people", Want: []string{`{"$numberLong":"4"}`}},
	{Name: "count_array_element", From: "manual: reference/method/db.collection.countDocuments", Op: Count, Coll: "people", Filter: `{"tags":"b"}`, Want: []string{`{"$numberLong":"2"}`}},
	{Name: "count_size_zero", From: nullQuery, Op: Count, Coll: "nulls", Filter: `{"a":{"$size":0}}`, Want: []string{`{"$numberLong":"1"}`}},

	// Distinct (distinct_array1.js), in BSON order.
	{Name: "distinct_array_elements", From: distArray, Op: Distinct, Coll: "dist", Field: "a", Filter: `{"c":{"$exists":false}}`,
		Want: []string{`1`, `2`, `3`, `4`, `5`, `9`}},
	{Name: "distinct_array_index_0", From: distArray, Op: Distinct, Coll: "dist", Field: "a.0", Filter: `{"c":{"$exists":false}}`,
		Want: []string{`1`, `2`, `3`}},
	{Name: "distinct_array_index_1", From: distArray, Op: Distinct, Coll: "dist", Field: "a.1", Filter: `{"c":{"$exists":false}}`,
		Want: []string{`2`, `3`, `4`}},
	{Name: "distinct_through_arrays", From: distArray, Op: Distinct, Coll: "dist", Field: "a.b",
		Want: []string{`"a"`, `"b"`, `"c"`, `"d"`, `"e"`, `"f"`, `"z"`}},
	{Name: "distinct_element_0_field", From: distArray, Op: Distinct, Coll: "dist", Field: "a.0.b",
		Want: []string{`"a"`, `"b"`, `"c"`}},
	{Name: "distinct_element_1_field", From: distArray, Op: Distinct, Coll: "dist", Field: "a.1.b",
		Want: []string{`"d"`, `"e"`, `"f"`}},
	{Name: "distinct_with_null_and_missing", From: "manual: reference/command/distinct", Op: Distinct, Coll: "mixed", Field: "v", Filter: `{"_id":{"$in":[1,3,6]}}`,
		Want: []string{`null`, `"text"`, `true`}},

	// Aggregate.
	{Name: "aggregate_group_count", From: aggManual + "/group", Op: Aggregate, Coll: "people",
		Pipeline: `[{"$match":{"age":{"$exists":true}}},{"$group":{"_id":"$address.city","n":{"$sum":1}}},{"$sort":{"_id":1}}]`,
		Want:     []string{`{"_id":"Lyon","n":1}`, `{"_id":"Paris","n":2}`}},
	{Name: "aggregate_unwind_count", From: aggManual + "/unwind", Op: Aggregate, Coll: "people",
		Pipeline: `[{"$unwind":"$tags"},{"$group":{"_id":"$tags","n":{"$sum":1}}},{"$sort":{"_id":1}}]`,
		Want:     []string{`{"_id":"a","n":1}`, `{"_id":"b","n":2}`}},
	{Name: "aggregate_skip_limit", From: aggManual + "/limit", Op: Aggregate, Coll: "people",
		Pipeline: `[{"$sort":{"_id":-1}},{"$skip":1},{"$limit":2},{"$project":{"name":1}}]`,
		Want:     []string{`{"_id":3,"name":"cy"}`, `{"_id":2,"name":"bob"}`}},
	{Name: "aggregate_project_field_path", From: aggManual + "/project", Op: Aggregate, Coll: "people",
		Pipeline: `[{"$match":{"_id":1}},{"$project":{"_id":0,"city":"$address.city"}}]`,
		Want:     []string{`{"city":"Paris"}`}},
	{Name: "aggregate_avg", From: aggManual + "/avg", Op: Aggregate, Coll: "people",
		Pipeline: `[{"$group":{"_id":null,"a":{"$avg":"$age"}}}]`,
		Want:     []string{`{"_id":null,"a":30.0}`}},
	{Name: "aggregate_lookup", From: aggManual + "/lookup", Op: Aggregate, Coll: "people",
		Pipeline: `[{"$match":{"_id":4}},{"$lookup":{"from":"elems","localField":"_id","foreignField":"_id","as":"e"}},{"$project":{"e":1}}]`,
		Want:     []string{`{"_id":4,"e":[]}`}},
	{Name: "aggregate_count_stage", From: aggManual + "/count", Op: Aggregate, Coll: "dist",
		Pipeline: `[{"$match":{"c":12}},{"$count":"n"}]`,
		Want:     []string{`{"n":{"$numberInt":"6"}}`}},

	// Errors: the same kind, and omgdb's own message where omgdb checks.
	{Name: "missing_collection_did_you_mean", From: omgdbErrors, Coll: "peple", Err: "did you mean `people`?", ErrKind: errs.NotFound},
	{Name: "missing_collection_count", From: omgdbErrors, Op: Count, Coll: "nobody", Err: "collection `nobody` not found", ErrKind: errs.NotFound},
	{Name: "missing_collection_aggregate", From: omgdbErrors, Op: Aggregate, Coll: "nobody", Pipeline: `[]`, Err: "collection `nobody` not found", ErrKind: errs.NotFound},
	{Name: "bad_filter_operator", From: omgdbErrors, Coll: "people", Filter: `{"age":{"$gtt":1}}`, Err: "$gtt", ErrKind: errs.Invalid},
	{Name: "bad_sort", From: omgdbErrors, Coll: "people", Sort: `{"age":2}`, Err: "sort", ErrKind: errs.Invalid},
	{Name: "mixed_projection", From: omgdbErrors, Coll: "people", Project: `{"name":1,"age":0}`, Err: "exclusion", ErrKind: errs.Invalid},
	{Name: "pipeline_out_refused", From: omgdbErrors, Op: Aggregate, Coll: "people", Pipeline: `[{"$out":"copy"}]`, Err: "$out", ErrKind: errs.Invalid},
	{Name: "distinct_dollar_field", From: omgdbErrors, Op: Distinct, Coll: "people", Field: "$age", Err: "starts with $", ErrKind: errs.Invalid},
	{Name: "negative_limit", From: omgdbErrors, Coll: "people", Limit: -1, Err: "negative", ErrKind: errs.Usage},
}
