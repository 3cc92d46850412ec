// Package agg runs MongoDB aggregation pipelines over streams of
// documents, free of I/O: it compiles stages with the expressions of
// query/expr and the filters and sorts of query, and reads other
// collections only through an Env that its caller provides.
//
// # Pipelines
//
// CompilePipeline compiles a pipeline of stages once, checking every
// stage, accumulator, operator and variable; Run streams a Source through
// it and returns a Source, reading other collections for $lookup and
// $unionWith through an Env. Streaming stages pass documents on as they
// arrive; blocking stages ($group, $sort, …) buffer at most
// PipelineOptions.MaxMemory, and one expression evaluation builds at most
// expr.MaxEvalWork, so hostile pipelines fail cleanly. A Pipeline is
// immutable: runs share nothing. docs/aggregation.md lists every stage,
// accumulator and operator, the limits and the differences from MongoDB.
//
// # Running with a store
//
// A store may run the start of a pipeline itself. Leading splits off a
// leading $match and $sort that an index can serve, and Fields lists the
// paths a pipeline reads when it can tell, so that documents can be
// decoded in part. GroupScan runs an optional $match and a $group over stored JSON on
// several goroutines, with the same result as Run: GroupBatch.Extract
// reads the fields of a batch of documents on any goroutine, and
// GroupRun.Add feeds the batches to the groups in document order.
package agg
