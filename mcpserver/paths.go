package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Paths. With --store, every call works on that one file. Otherwise a
// `path` argument names a file under the root, and is resolved like this:
//
//  1. Lexically: an absolute path must lie under the root; `..` may not
//     climb out of it.
//  2. Through symlinks: the fully resolved path must still lie under the
//     resolved root (this check gives the clear message).
//  3. Safely: the file is opened through os.Root, which refuses to leave
//     the root by any route, without blocking (O_NONBLOCK, so a FIFO
//     cannot hang the call), and must be a regular file.
//  4. The store layer opens files by name. It is handed /proc/self/fd/N,
//     the file verified in step 3, so a path swapped for a symlink after
//     the checks cannot redirect it (no TOCTOU window). Where /proc is
//     not available, it gets the resolved path, checked to be the same
//     file just before; a swap in between remains possible there.
//
// Messages name the path the agent gave, never the resolved one.

// located is a verified store file under the root.
type located struct {
	display string   // the path as the agent should see it: cleaned, relative to the root
	file    *os.File // the verified file, open until the store has opened it
	real    string   // its resolved path
}

// openFor opens the call's store for work on the collection coll ("" for
// none): a collection the policy hides is refused before the file is
// touched. The caller closes the store.
func (c *call) openFor(coll string, write bool) (*store.DB, error) {
	if coll != "" && !c.srv.policy.collectionAllowed(coll) {
		return nil, deniedCollection(coll)
	}
	return c.openStore(write)
}

// actor names the call's client in the journal: mcp:<client name>.
func (c *call) actor() string { return "mcp:" + c.sess.clientName() }

// openStore opens the store a call names. A read-scope server, or a tool
// of read scope, opens it read-only: layer 3 of the scope enforcement.
// With write, a missing store under the root is created (its name must
// end in .omgdb).
func (c *call) openStore(write bool) (*store.DB, error) {
	s := c.srv
	if s.cfg.Engine != nil {
		return nil, errorf(CodeNotFound, "%s is a MongoDB deployment: this needs a store file", s.cfg.Store).
			withHint("over MongoDB this server serves %s (see omgdb://docs/mongodb)", strings.Join(s.listedNames(), ", "))
	}
	readOnly := !write || c.tool.Scope == ScopeRead || s.cfg.Scope == ScopeRead
	opts := &store.Options{ReadOnly: readOnly, Timeout: s.cfg.LockTimeout, Actor: c.actor()}
	if s.cfg.Store != "" {
		return c.openPinned(opts)
	}
	loc, err := s.locate(c.pathArg(), !readOnly)
	if err != nil {
		return nil, err
	}
	defer loc.file.Close()
	openPath := loc.openPath()
	c.rewrites = append(c.rewrites, openPath, loc.display, loc.real, loc.display)
	return store.Open(openPath, opts)
}

func (c *call) openPinned(opts *store.Options) (*store.DB, error) {
	s := c.srv
	if p := c.pathArg(); p != "" && !s.isPinned(p) {
		return nil, errorf(CodePathDenied, "this server serves only the store %s; path %s is refused", s.cfg.Store, truncate(p, 200)).
			withHint("omit path").withContext("path", truncate(p, 200))
	}
	opts.Create = !opts.ReadOnly
	return store.Open(s.cfg.Store, opts)
}

func (s *Server) isPinned(p string) bool {
	pinned := filepath.Clean(s.cfg.Store)
	if filepath.Clean(p) == pinned || p == filepath.Base(pinned) {
		return true
	}
	a, err1 := filepath.Abs(p)
	b, err2 := filepath.Abs(pinned)
	return err1 == nil && err2 == nil && a == b
}

// storePath returns the store path as the agent should see it.
func (c *call) storePath() string {
	if c.srv.cfg.Store != "" {
		return c.srv.cfg.Store
	}
	p, _ := c.srv.relative(c.pathArg())
	return p
}

// locate resolves and opens a store file under the root (steps 1 to 3).
func (s *Server) locate(arg string, create bool) (*located, error) {
	rel, err := s.relative(arg)
	if err != nil {
		return nil, err
	}
	rootDir, target, err := s.resolve(rel)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		return nil, errorf(CodeInternal, "cannot open the server root: %v", unwrapPathError(err))
	}
	defer root.Close()
	fi, err := root.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist) && create:
		return s.create(root, rel)
	case errors.Is(err, fs.ErrNotExist):
		return nil, s.notFound(rel)
	case err != nil:
		return nil, pathDenied(rel, "cannot be opened inside the server root: %v", unwrapPathError(err))
	case !fi.Mode().IsRegular():
		return nil, notRegular(rel, fi.Mode())
	}
	f, err := root.OpenFile(target, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, pathDenied(rel, "cannot be opened inside the server root: %v", unwrapPathError(err))
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, pathDenied(rel, "cannot be read: %v", unwrapPathError(err))
		}
		return nil, notRegular(rel, fi.Mode())
	}
	return &located{display: rel, file: f, real: filepath.Join(rootDir, target)}, nil
}

// resolve follows the symlinks of rel and refuses a path that leads
// outside the root (step 2). It returns the directory to open as the
// os.Root and the path to open in it: the resolved path under the
// resolved root when rel exists (so that a symlink with an absolute
// target inside the root works), else rel under the root.
func (s *Server) resolve(rel string) (string, string, error) {
	real, err := filepath.EvalSymlinks(filepath.Join(s.root, rel))
	if err != nil {
		return s.root, rel, nil // missing, or a dangling link: os.Root decides
	}
	rootReal, err := filepath.EvalSymlinks(s.root)
	if err != nil {
		return "", "", errorf(CodeInternal, "cannot resolve the server root: %v", unwrapPathError(err))
	}
	r, err := filepath.Rel(rootReal, real)
	if err != nil || escapes(r) {
		return "", "", pathDenied(rel, "resolves (through a symlink) to a file outside the server root")
	}
	return rootReal, r, nil
}

// relative returns arg as a clean path relative to the root, refusing
// what lexically leaves it.
func (s *Server) relative(arg string) (string, error) {
	p := arg
	if p == "" {
		return "", errorf(CodeInvalidArgument, "missing required argument `path`").
			withHint("give the store file, relative to the server root, e.g. \"app.omgdb\"")
	}
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(s.root, filepath.Clean(p))
		if err != nil || escapes(r) {
			return "", pathDenied(truncate(arg, 200), "is outside the server root").withNext("describe")
		}
		p = r
	}
	p = filepath.Clean(p)
	switch {
	case escapes(p):
		return "", pathDenied(truncate(arg, 200), "leaves the server root")
	case p == ".":
		return "", pathDenied(truncate(arg, 200), "is the root directory, not a store file")
	}
	return p, nil
}

func escapes(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// create makes a new store under the root for a write, as the store
// layer makes one: laid out under a temporary name, then linked to its
// own (never over a file that appeared meanwhile), the directory synced,
// so that a crash leaves no empty or half-made store under the name. It
// goes through os.Root like every open, then opens the new store.
func (s *Server) create(root *os.Root, rel string) (*located, error) {
	if !strings.HasSuffix(rel, ".omgdb") {
		return nil, errorf(CodeInvalidArgument, "store not found: %s; a new store's name must end in .omgdb", rel).
			withHint("check the path, or name a new store like app.omgdb").withContext("path", rel)
	}
	dir := filepath.Dir(rel)
	tmp := filepath.Join(dir, "."+filepath.Base(rel)+".creating-"+value.NewOID().Hex())
	f, err := root.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errorf(CodeNotFound, "cannot create store %s: its directory does not exist", rel).
			withHint("stores can be created only in existing directories under the root").withContext("path", rel)
	}
	if err != nil {
		return nil, pathDenied(rel, "cannot be created: %v", unwrapPathError(err))
	}
	defer root.Remove(tmp)
	db, err := store.Open((&located{file: f, real: filepath.Join(s.root, tmp)}).openPath(), nil)
	f.Close()
	if err != nil {
		return nil, errorf(CodeInternal, "cannot create store %s: %v", rel, err)
	}
	if err := db.Close(); err != nil {
		return nil, errorf(CodeInternal, "cannot create store %s: %v", rel, err)
	}
	if err := root.Link(tmp, rel); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, pathDenied(rel, "cannot be created: %v", unwrapPathError(err))
	}
	if d, err := root.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return s.locate(rel, false)
}

// openPath returns the name the store layer opens: the verified file's
// /proc/self/fd link where it exists, else its path (step 4).
func (l *located) openPath() string {
	fi, err := l.file.Stat()
	if err != nil {
		return l.real
	}
	link := fmt.Sprintf("/proc/self/fd/%d", l.file.Fd())
	if li, err := os.Stat(link); err == nil && os.SameFile(li, fi) {
		return link
	}
	return l.real
}

// notFound is the error for a missing store: it suggests a near name or
// lists the stores under the root.
func (s *Server) notFound(rel string) error {
	stores := s.storesUnderRoot(20)
	e := errorf(CodeNotFound, "store not found: %s", rel).withContext("path", rel, "stores", stores)
	switch sugg, ok := errs.Suggest(rel, stores); {
	case ok:
		e.withHint("did you mean %s?", sugg)
	case len(stores) > 0:
		e.withHint("stores under the server root: %s", strings.Join(stores, ", "))
	default:
		e.withHint("there are no stores (*.omgdb) under the server root")
	}
	return e
}

// storesUnderRoot lists up to max *.omgdb files under the root, three
// directories deep, skipping hidden directories.
func (s *Server) storesUnderRoot(max int) []string {
	stores := []string{}
	filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case len(stores) >= max:
			return filepath.SkipAll
		case err != nil:
			return nil
		}
		rel, _ := filepath.Rel(s.root, p)
		if d.IsDir() && rel != "." && (strings.HasPrefix(d.Name(), ".") || strings.Count(rel, string(filepath.Separator)) >= 2) {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".omgdb") {
			stores = append(stores, filepath.ToSlash(rel))
		}
		return nil
	})
	return stores
}

func pathDenied(path, format string, args ...any) *toolError {
	return errorf(CodePathDenied, "path %s %s", path, fmt.Sprintf(format, args...)).
		withHint("give a store file under the server root, e.g. \"app.omgdb\"").withContext("path", path)
}

func notRegular(rel string, mode fs.FileMode) *toolError {
	kind := "not a regular file"
	switch {
	case mode.IsDir():
		kind = "a directory"
	case mode&fs.ModeNamedPipe != 0:
		kind = "a FIFO"
	case mode&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		kind = "a device"
	case mode&fs.ModeSocket != 0:
		kind = "a socket"
	}
	return pathDenied(rel, "is %s; a store is one regular file", kind)
}

// unwrapPathError drops the operation and path of an *fs.PathError, which
// would name the resolved path.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
