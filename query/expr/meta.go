package expr

import (
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

func registerExprMetaOps() {
	registerOps(map[string]opCompiler{"$meta": compileMeta})
}

// metaNode is {"$meta":"textScore"}: the score a $text query gave the
// document, which the pipeline carries in value.TextScoreField.
type metaNode struct{}

func compileMeta(_ *Compiler, _ string, arg value.Value) (Node, error) {
	if arg.Kind() != value.String || arg.Str() != "textScore" {
		return nil, errs.Errorf(errs.Invalid, "unsupported $meta value %s: omgdb knows only \"textScore\"", arg).
			WithHint(`write {"$meta":"textScore"} after a first $match with $text`)
	}
	return metaNode{}, nil
}

func (metaNode) Eval(c *EvalCtx) (value.Value, error) {
	v := c.Root.Get(value.TextScoreField)
	if v.IsMissing() {
		return value.Value{}, errs.Errorf(errs.Invalid, "query requires text score metadata, but it is not available").
			WithHint(`{"$meta":"textScore"} needs a first $match with {"$text":{"$search":…}}`)
	}
	return v, nil
}
