package value

import "sync"

// pool is a typed sync.Pool.
type pool[T any] struct {
	p   sync.Pool
	new func() *T
}

func (p *pool[T]) Get() *T {
	if v := p.p.Get(); v != nil {
		return v.(*T)
	}
	return p.new()
}

func (p *pool[T]) Put(v *T) { p.p.Put(v) }
