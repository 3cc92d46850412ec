package enginetest

// Fixtures are the collections every engine loads before the cases run.
// Plain JSON integers are longs (omgdb's reading of JSON); int32, double
// and decimal values are written in their Extended JSON wrappers.
var Fixtures = []Fixture{
	{Name: "people", Docs: []string{
		`{"_id":1,"name":"ana","age":30,"tags":["a","b"],"address":{"city":"Paris"}}`,
		`{"_id":2,"name":"bob","age":25,"tags":["b"],"address":{"city":"Lyon"}}`,
		`{"_id":3,"name":"cy","age":35,"tags":[],"address":{"city":"Paris"}}`,
		`{"_id":4,"name":"dee"}`,
	}, Indexes: []Index{{Key: `{"age":-1}`}, {Key: `{"name":1}`, Unique: true}, {Key: `{"address.city":1,"age":1}`, Sparse: true}}},
	// jstests/core/query/sort/sort_array.js
	{Name: "sortarr", Docs: []string{
		`{"_id":0,"a":[3,0,1]}`,
		`{"_id":1,"a":[8,4,-1]}`,
	}},
	{Name: "sortxy", Docs: []string{
		`{"_id":0,"x":[{"y":[4,0,1],"z":7},{"y":0,"z":9}]}`,
		`{"_id":1,"x":[{"y":1,"z":7},{"y":0,"z":[8,6]}]}`,
	}},
	// jstests/core/query/type/type_array.js: 1 (a double in the shell),
	// NumberInt(1), NumberLong(1).
	{Name: "types", Docs: []string{
		`{"_id":0,"a":{"$numberDouble":"1"}}`,
		`{"_id":1,"a":{"$numberInt":"1"}}`,
		`{"_id":2,"a":{"$numberLong":"1"}}`,
		`{"_id":3,"a":"str"}`,
		`{"_id":4,"a":[]}`,
		`{"_id":5,"a":[{"$numberInt":"1"},"str"]}`,
		`{"_id":6}`,
	}},
	// jstests/core/query/null_query_semantics.js (without undefined, which
	// omgdb does not store).
	{Name: "nulls", Docs: []string{
		`{"_id":"a_empty_subobject","a":{}}`,
		`{"_id":"a_null","a":null}`,
		`{"_id":"a_number","a":4}`,
		`{"_id":"a_subobject_b_not_null","a":{"b":"hi"}}`,
		`{"_id":"a_subobject_b_null","a":{"b":null}}`,
		`{"_id":"no_a"}`,
		`{"_id":"a_empty_array","a":[]}`,
		`{"_id":"a_object_array_no_b_nulls","a":[{"b":1},{"b":3},{"b":"string"}]}`,
		`{"_id":"a_object_array_some_b_nulls","a":[{"b":null},{"b":3},{"b":null}]}`,
		`{"_id":"a_object_array_some_b_missing","a":[{"b":3},{}]}`,
		`{"_id":"a_value_array_all_nulls","a":[null,null]}`,
		`{"_id":"a_value_array_no_nulls","a":[1,"string",4]}`,
		`{"_id":"a_value_array_with_null","a":[1,"string",null,4]}`,
	}},
	// jstests/core/query/distinct/distinct_array1.js
	{Name: "dist", Docs: []string{
		`{"_id":1,"a":[1,2,3]}`,
		`{"_id":2,"a":[2,3,4]}`,
		`{"_id":3,"a":[3,4,5]}`,
		`{"_id":4,"a":9}`,
		`{"_id":5,"a":[{"b":"a"},{"b":"d"}],"c":12}`,
		`{"_id":6,"a":[{"b":"b"},{"b":"d"}],"c":12}`,
		`{"_id":7,"a":[{"b":"c"},{"b":"e"}],"c":12}`,
		`{"_id":8,"a":[{"b":"c"},{"b":"f"}],"c":12}`,
		`{"_id":9,"a":[],"c":12}`,
		`{"_id":10,"a":{"b":"z"},"c":12}`,
	}},
	// Mixed numeric types (jstests/core/query/number/numberlong*.js; the
	// manual's "Comparison/Sort Order"): 2^53+1 as a long is not the double
	// 2^53, and no comparison may pass through float64.
	{Name: "nums", Docs: []string{
		`{"_id":1,"x":{"$numberLong":"9007199254740993"}}`,
		`{"_id":2,"x":{"$numberDouble":"9007199254740992"}}`,
		`{"_id":4,"x":{"$numberInt":"5"}}`,
		`{"_id":5,"x":{"$numberDouble":"5.5"}}`,
		`{"_id":6,"x":"5"}`,
	}},
	// Decimals among the other numbers
	// (the manual: reference/bson-type-comparison-order, numeric types).
	{Name: "decimals", Docs: []string{
		`{"_id":1,"x":{"$numberLong":"9007199254740993"}}`,
		`{"_id":2,"x":{"$numberDecimal":"9007199254740993.5"}}`,
		`{"_id":3,"x":{"$numberDecimal":"-1"}}`,
		`{"_id":4,"x":{"$numberDouble":"0.5"}}`,
		`{"_id":5,"x":{"$numberDecimal":"0.10"}}`,
	}},
	// $elemMatch against plain conditions on arrays
	// (jstests/core/query/elemmatch/elemmatch_object.js).
	{Name: "elems", Docs: []string{
		`{"_id":1,"r":[{"k":"a","v":1},{"k":"b","v":2}]}`,
		`{"_id":2,"r":[{"k":"a","v":2},{"k":"b","v":1}]}`,
	}},
	// Arrays of arrays (a_double_array of null_query_semantics.js).
	{Name: "nested", Docs: []string{
		`{"_id":1,"a":[[]]}`,
		`{"_id":2,"a":[[1,2],[3]]}`,
		`{"_id":3,"a":[1,[2]]}`,
	}},
	// Other BSON types, for type order.
	{Name: "mixed", Docs: []string{
		`{"_id":1,"v":"text"}`,
		`{"_id":2,"v":{"$oid":"5f0000000000000000000001"}}`,
		`{"_id":3,"v":true}`,
		`{"_id":4,"v":{"$date":{"$numberLong":"86400000"}}}`,
		`{"_id":5,"v":{"k":1}}`,
		`{"_id":6,"v":null}`,
		`{"_id":7,"v":{"$binary":{"base64":"AQI=","subType":"00"}}}`,
		`{"_id":11,"v":{"$regularExpression":{"pattern":"^a","options":"i"}}}`,
		`{"_id":12,"v":{"$timestamp":{"t":5,"i":1}}}`,
	}},
	// MinKey and MaxKey, below and above every other value.
	{Name: "bounds", Docs: []string{
		`{"_id":1,"v":{"$maxKey":1}}`,
		`{"_id":2,"v":"z"}`,
		`{"_id":3,"v":{"$minKey":1}}`,
		`{"_id":4,"v":null}`,
	}},
}
