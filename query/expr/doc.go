// Package expr is omgdb's aggregation expression language, free of I/O:
// field paths ("$a.b"), variables ("$$ROOT", "$$x" bound by $let, $map,
// …), literals and operators ($add, $concat, $dateToString, $filter,
// $cond, …), and the accumulators ($sum, $push, $topN, …) that $group
// runs and whose expression forms work on arrays. It imports query/value
// and query/errs.
//
// # Compiling and evaluating
//
// Compile compiles an expression once, checking every operator and
// variable; Expr.Eval evaluates it with a document as $$ROOT. An Expr is
// immutable and safe for concurrent use. The pipeline stages of
// query/agg compile all their expressions with one Compiler, so that
// variables get slots unique across the pipeline, and evaluate each
// compiled Node with an EvalCtx of their own.
//
// # Semantics and limits
//
// Values convert to booleans as MongoDB's aggregation does (Truthy):
// false, null, missing and numeric zero are false. Long arithmetic that
// overflows is an error: there is no decimal to widen to. Regular
// expressions ($regexMatch and its kin, and the filter language's
// $regex, through CompileRegex) use Go's RE2, which runs in linear time
// and has no lookaround or backreferences; a pattern is at most
// MaxRegexLength bytes. One evaluation builds at most MaxEvalWork units
// of values and $range at most MaxRangeLength elements, so that hostile
// expressions fail cleanly.
//
// # Deadlines
//
// Expr.EvalContext and an EvalCtx with Ctx set stop an evaluation when
// its context is done, with the context's error. Operators count steps
// (about one per element, field or 16 string bytes they read or build);
// the context is consulted every CheckEvery steps, never per operation,
// so a cheap evaluation never consults it and a costly one ($range,
// $map, $filter, $reduce, $zip, $sortArray, string and set operators,
// regular expressions over long strings) stops within about a
// millisecond. $range charges its array against MaxEvalWork before
// allocating it. A regular-expression match over a string of
// LongRegexSubject bytes or more reads it through a reader that ends the
// input once the context is done (MatchRegex), so it stops too; a pattern
// is at most MaxRegexProgram elements with its counted repetitions written
// out, which bounds a shorter match. docs/aggregation.md lists every operator and
// every known difference from MongoDB.
package expr
