package mcpserver

import (
	"context"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// builtins returns the tools this build has, in the order tools/list
// shows them. A tool whose engine part does not exist yet is not here:
// the catalog never lists a tool that does not work.
func (s *Server) builtins() []*tool {
	return []*tool{s.describeTool(), s.findTool(), s.countTool(), s.distinctTool(), s.aggregateTool(), s.exportTool(), s.insertTool(),
		s.insertManyTool(), s.createCollectionTool(), s.renameCollectionTool(), s.explainTool(), s.diagnoseTool(), s.vsearchTool(), s.searchTool(), s.contextPackTool(),
		s.statsTool(), s.listIndexesTool(), s.suggestIndexesTool(), s.createIndexTool(), s.dropIndexTool(),
		// the change lifecycle (tool_changes.go, tool_history.go)
		s.historyTool(), s.diffTool(), s.plansTool(), s.planUpdateTool(), s.planDeleteTool(), s.planAggregateTool(), s.planRevertTool(),
		s.applyTool(), s.rollbackTool(), s.createSnapshotTool(), s.deleteSnapshotTool(), s.dropCollectionTool(), s.pruneHistoryTool()}
}

// buildCatalog gathers the built-in and canned tools and decides which
// are listed: those within the scope and allowed by the tool policy.
func (s *Server) buildCatalog() error {
	all := s.builtins()
	s.useEngine(all)
	canned, err := s.loadCanned()
	if err != nil {
		return err
	}
	s.known = map[string]*tool{}
	for _, t := range append(all, canned...) {
		if s.known[t.Name] != nil {
			return errs.Errorf(errs.Usage, "--tools-file %s: tool `%s` is already a built-in tool", s.cfg.ToolsFile, t.Name).
				WithHint("give the canned tool another name")
		}
		s.known[t.Name] = t
		if s.lists(t) {
			s.tools = append(s.tools, t)
		}
	}
	return nil
}

func (s *Server) lists(t *tool) bool {
	return t.Run != nil && t.Scope <= s.cfg.Scope && s.policy.toolAllowed(t.Name) && (!s.cfg.OnlyCanned || t.canned)
}

// listed reports whether the tool is listed (and so callable).
func (s *Server) listed(name string) bool {
	t := s.known[name]
	return t != nil && s.lists(t)
}

func (s *Server) anyListedAbove(sc Scope) bool {
	for _, t := range s.tools {
		if t.Scope > sc {
			return true
		}
	}
	return false
}

func (s *Server) listedNames() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.Name
	}
	return names
}

// catalog returns the tools/list result.
func (s *Server) catalog() value.Value {
	tools := make([]value.Value, len(s.tools))
	for i, t := range s.tools {
		tools[i] = t.describe(len(s.policy.redactOrder) > 0)
	}
	return obj("tools", arr(tools...))
}

func (ss *session) listTools(_ context.Context, p params) (value.Value, *rpcError) {
	if c, _ := p.str("cursor", false); c != "" {
		return value.Value{}, rpcErrorf(codeInvalidParams, "invalid params: unknown cursor (tools/list has one page)")
	}
	return ss.srv.catalog(), nil
}

// admit decides whether a tool may be called, before its arguments are
// read or the file system is touched: layer 2 of the scope enforcement.
func (s *Server) admit(name string) (*tool, *toolError) {
	t := s.known[name]
	listed := strings.Join(s.listedNames(), ", ")
	switch {
	case t == nil:
		return nil, errorf(CodeNotFound, "unknown tool `%s`%s", truncate(name, 60), errs.DidYouMean(name, s.listedNames())).
			withHint("this server's tools are: %s", listed).withContext("tool", truncate(name, 60))
	case t.Scope > s.cfg.Scope:
		return nil, errorf(CodeScopeDenied, "tool `%s` requires `%s` scope but this server runs with `%s` scope", name, t.Scope, s.cfg.Scope).
			withHint("only the user can widen the scope, by restarting the server with --scope %s; available now: %s", t.Scope, listed).
			withContext("tool", name, "required_scope", t.Scope.String(), "server_scope", s.cfg.Scope.String())
	case t.Run == nil:
		return nil, s.notOnEngine(name)
	case !s.lists(t):
		return nil, errorf(CodePolicyDenied, "tool `%s` is not enabled on this server", name).
			withHint("the server's --tools, --deny-tools or --only-canned policy leaves it out; available: %s", listed).
			withContext("tool", name)
	}
	return t, nil
}
