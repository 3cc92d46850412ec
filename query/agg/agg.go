package agg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// Env gives a pipeline access to other collections, for $lookup and
// $unionWith. The store provides it; an unknown collection is an error
// that the pipeline passes on unchanged.
type Env interface {
	Collection(ctx context.Context, name string) (Source, error)
}

// PipelineOptions tunes a pipeline. The zero value (or nil) gives the
// defaults.
type PipelineOptions struct {
	// MaxMemory bounds the bytes (an estimate) that $group, $sort,
	// $bucketAuto, $facet and $lookup may buffer. Default DefaultMaxMemory.
	MaxMemory int64
	// Seed makes $sample deterministic: the same seed over the same input
	// picks the same documents. Default 0 (itself a fixed seed).
	Seed uint64
	// Now is the value of $$NOW. Default: the time Run is called.
	Now time.Time
	// SpillDir, when set, lets $sort (without a following $limit), $group,
	// $setWindowFields (window_spill.go) and $facet go on past MaxMemory in
	// temporary files there, as
	// MongoDB's allowDiskUse; empty, they fail past it. The CLI sets it; the MCP
	// server does not.
	SpillDir string
	// Collation, when set, makes the pipeline compare strings by it:
	// $match, $sort, $group keys, $sortByCount, $bucket, and the $min,
	// $max and $addToSet accumulators. Default: binary (simple).
	Collation *collation.Collation
}

// Limits of pipelines.
const (
	DefaultMaxMemory  = 100 << 20 // bytes a pipeline stage may buffer
	MaxPipelineStages = 100       // stages in one pipeline (each sub-pipeline counts on its own)
)

// Pipeline is a compiled aggregation pipeline. It is immutable and may be
// run any number of times, concurrently.
type Pipeline struct {
	stages   []stage
	slots    int
	opts     PipelineOptions
	fields   []string // the input paths it reads, when fieldsOK
	fieldsOK bool
}

// stage is one compiled pipeline stage.
type stage interface {
	run(r *runState, in Source) Source
}

// runState is the state of one run of a pipeline, shared by its stages
// and sub-pipelines.
type runState struct {
	ctx  context.Context
	env  Env
	opts *PipelineOptions
	ec   *expr.EvalCtx
}

// CompilePipeline validates and compiles a pipeline: an array of stage
// objects such as [{"$match":{…}}, {"$group":{…}}].
func CompilePipeline(stages value.Value, opts *PipelineOptions) (*Pipeline, error) {
	p := &Pipeline{}
	if opts != nil {
		p.opts = *opts
	}
	if p.opts.MaxMemory <= 0 {
		p.opts.MaxMemory = DefaultMaxMemory
	}
	c := expr.NewCompiler()
	c.Collation = p.opts.Collation
	list, err := compileStages(c, stages, pipeTop)
	if err != nil {
		return nil, err
	}
	if err := checkTextSorts(list); err != nil {
		return nil, err
	}
	p.stages, p.slots = list, c.Slots
	p.fields, p.fieldsOK = pipelineFields(stages)
	return p, nil
}

// Run streams src through the pipeline. Stages that can (such as $match,
// $project, $unwind, $limit) pass documents on as they arrive; $group,
// $sort and the like read their whole input first. Errors surface from
// the returned Source's Err. Closing it closes src.
func (p *Pipeline) Run(ctx context.Context, src Source, env Env) Source {
	now := p.opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	r := &runState{ctx: ctx, env: env, opts: &p.opts}
	r.ec = &expr.EvalCtx{Vars: make([]value.Value, p.slots), Now: value.DateValue(now.UnixMilli()), Ctx: ctx}
	return r.runStages(p.stages, src)
}

func (r *runState) runStages(stages []stage, src Source) Source {
	for _, s := range stages {
		src = s.run(r, src)
	}
	return src
}

// eval evaluates n with doc as $$ROOT and $$CURRENT.
func (r *runState) eval(n expr.Node, doc value.Value) (value.Value, error) {
	r.ec.Root, r.ec.Vars[0], r.ec.Work = doc, doc, 0
	return n.Eval(r.ec)
}

// pull reads the next document of in, checking for cancellation.
func (r *runState) pull(in Source) (value.Value, bool, error) {
	if r.ctx != nil {
		if err := r.ctx.Err(); err != nil {
			return value.Value{}, false, err
		}
	}
	if in.Next() {
		return in.Doc(), true, nil
	}
	return value.Value{}, false, in.Err()
}

// drain reads all of in, calling f with each document.
func (r *runState) drain(in Source, f func(value.Value) error) error {
	for {
		doc, ok, err := r.pull(in)
		if err != nil || !ok {
			return err
		}
		if err := f(doc); err != nil {
			return err
		}
	}
}

// budget tracks the estimated bytes a stage buffers against MaxMemory.
type budget struct {
	stage string
	max   int64
	used  int64
}

func (r *runState) budget(stage string) *budget {
	return &budget{stage: stage, max: r.opts.MaxMemory}
}

func (b *budget) grow(n int64) error {
	b.used += n
	if b.used <= b.max {
		return nil
	}
	e := errs.Errorf(errs.Limit, "%s exceeded the aggregation memory limit of %s (PipelineOptions.MaxMemory)", b.stage, formatBytes(b.max))
	e.Err = ErrMemoryLimit
	return e.WithHint("filter or project documents earlier in the pipeline so that %s buffers less, or raise MaxMemory", b.stage)
}

// ErrMemoryLimit is wrapped by the error of a stage that needed more
// than MaxMemory.
var ErrMemoryLimit = errors.New("agg: memory limit exceeded")

// Spills reports whether the pipeline's $sort, $group, $setWindowFields
// and $facet go on in temporary files past MaxMemory
// (PipelineOptions.SpillDir).
func (p *Pipeline) Spills() bool { return p.opts.SpillDir != "" }

func formatBytes(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// funcSource is a Source whose documents come from a function.
type funcSource struct {
	in      Source // closed with this source; may be nil
	onClose func() error
	next    func() (value.Value, bool, error)
	doc     value.Value
	err     error
	done    bool
}

// Next reads the next document from the function.
func (s *funcSource) Next() bool {
	if s.done {
		return false
	}
	doc, ok, err := s.next()
	if err != nil || !ok {
		s.err, s.done = err, true
		return false
	}
	s.doc = doc
	return true
}

// Doc returns the current document.
func (s *funcSource) Doc() value.Value { return s.doc }

// Err returns the error that ended the stream, if any.
func (s *funcSource) Err() error { return s.err }

// Close closes the input, or calls onClose when it is set instead.
func (s *funcSource) Close() error {
	s.done = true
	switch {
	case s.onClose != nil:
		return s.onClose()
	case s.in != nil:
		return s.in.Close()
	}
	return nil
}

// bufferedSource is the Source of a stage that reads its whole input
// before its first output: fill runs at the first Next.
func bufferedSource(in Source, fill func() ([]value.Value, error)) Source {
	var out []value.Value
	started := false
	return &funcSource{in: in, next: func() (value.Value, bool, error) {
		if !started {
			started = true
			var err error
			if out, err = fill(); err != nil {
				return value.Value{}, false, err
			}
		}
		if len(out) == 0 {
			return value.Value{}, false, nil
		}
		d := out[0]
		out = out[1:]
		return d, true, nil
	}}
}

// SliceSource returns a Source over docs, for tests and small inputs.
func SliceSource(docs []value.Value) Source {
	i := 0
	return &funcSource{next: func() (value.Value, bool, error) {
		if i >= len(docs) {
			return value.Value{}, false, nil
		}
		i++
		return docs[i-1], true, nil
	}}
}

// errSource is a Source that fails at once.
func errSource(in Source, err error) Source {
	return &funcSource{in: in, next: func() (value.Value, bool, error) { return value.Value{}, false, err }}
}

// collect reads a whole Source into a slice, counting it against b, and
// closes it.
func collect(r *runState, src Source, b *budget) ([]value.Value, error) {
	var out []value.Value
	err := r.drain(src, func(d value.Value) error {
		out = append(out, d)
		return b.grow(value.Size(d))
	})
	if cerr := src.Close(); err == nil {
		err = cerr
	}
	return slices.Clip(out), err
}
