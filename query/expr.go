package query

// Expr is a compiled aggregation expression. (Interim stub: the expression
// language lands with aggregation and replaces this file.)
type Expr struct{ spec Value }

// CompileExpr validates and compiles an aggregation expression such as
// {"$add":["$a",1]}, "$field", or a literal.
func CompileExpr(spec Value) (*Expr, error) {
	return nil, Errorf(Invalid, "aggregation expressions are not available yet")
}

// Eval evaluates the expression with root as $$ROOT and $$CURRENT.
func (e *Expr) Eval(root Value) (Value, error) { return Value{}, nil }
