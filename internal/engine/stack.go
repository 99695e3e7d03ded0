package engine

import (
	"fmt"
	"runtime"
	"strconv"
	"text/template"
	tparse "text/template/parse"
)

// The Go stack a rendering uses is counted, not measured. Every way a
// template can run another (include, tpl, text/template's own template
// action) adds, on the Go stack of the one that called it, what the
// callee's body can use: a weight computed once from its parse tree, in
// frames, with room to spare (TestStackWeights and FuzzStackWeights hold
// the weights above the frames text/template really uses). The sum along
// the running calls stays under maxFrames, far below Go's 1 GiB limit,
// which ends the process when a stack passes it. include and tpl add the
// weight themselves; the template action is not a function, so the
// templates it runs are given two actions of their own (addHooks): the
// first adds the weight, the last takes it back. Walking the stack to
// measure it instead cost a tenth of a rendering's time.
const (
	// maxFrames bounds the counted frames of the calls running inside
	// each other: the weights count at least one and a half times the
	// frames text/template uses, and at the limit the goroutine's stack
	// measured 64 MiB (a template running itself inside 10 to 9,000 nested
	// ifs), a sixteenth of Go's limit.
	maxFrames = 1_000_000
	// framesPerLevel is counted for each node of a template that nests
	// the execution one level deeper (an action, a control action, a
	// parenthesized pipeline): text/template uses three to six frames.
	framesPerLevel = 12
	// framesPerRange is counted for a range action instead: at most
	// MaxRangeNesting of them along the calls running inside each other
	// (an error unwinds nested ranges in the square of their number).
	framesPerRange = maxFrames / MaxRangeNesting
	// framesBase is counted for each template's body, framesInclude,
	// framesTpl and framesTemplate for the calls that run one (text/template
	// uses 3 for the template action, include 13 and tpl 12, through the
	// function call).
	framesBase, framesInclude, framesTpl, framesTemplate = 32, 32, 32, 24
)

// stackCheck, when set (by tests), is called where a call is counted,
// with the frames counted for the calls running, the new one's own
// included, and a function that counts the frames on the stack above the
// rendering's first (a walk of the whole stack): never more.
var stackCheck func(counted int, real func() int)

// realFrames is how many frames are on the calling goroutine's stack (for
// stackCheck).
func realFrames() int {
	var buf [4096]uintptr
	n := 0
	for {
		k := runtime.Callers(n, buf[:])
		n += k
		if k < len(buf) {
			return n
		}
	}
}

// stackFunc is the function of the actions addHooks adds, named so that no
// chart template can call it (it is not a function when charts are parsed;
// checkForged refuses it in tpl's text). One function does both: tpl
// copies a rendering's function maps on every call, and with one more
// function Helm 3's would pass the 224 entries Go's map holds in a
// 256-slot table and double (tpl-heavy renderings took a quarter longer:
// TestRunFuncsFitTheirMap).
const stackFunc = "_repotoolStack"

// weights are the frames each template of a set may use, by name; a tpl
// call's templates are looked up in its own, then in its parent's.
type weights struct {
	own    map[string]int
	parent *weights
}

func (w *weights) get(name string) int {
	for ; w != nil; w = w.parent {
		if n, ok := w.own[name]; ok {
			return n
		}
	}
	return 0
}

// account adds to the running calls' frames a call's own (overhead) and
// its callee's weight, or refuses the call (kind: include, tpl or
// template; name: its callee's) when they would pass maxFrames.
func (b *callDepth) account(overhead, weight int, kind, name string) error {
	if stackCheck != nil {
		stackCheck(b.frames+overhead, func() int { return realFrames() - b.base })
	}
	n := overhead + weight
	if b.frames+n > maxFrames {
		return depthError{limitError(fmt.Sprintf("the templates ran inside each other deeper than %d Go stack frames (repotool's limit, as it counts "+
			"them), at %s: does a template run itself with template, thousands deep?", maxFrames, callName(kind, name)))}
	}
	b.frames += n
	return nil
}

// stackFuncs is the function of the actions addHooks adds, bound to r's
// budget.
func (r *run) stackFuncs() template.FuncMap {
	return template.FuncMap{
		// w > 0: the template name starts; w < 0: it ends.
		stackFunc: func(w int, name string) (string, error) {
			if w < 0 {
				r.frames -= framesTemplate - w
				return "", nil
			}
			return "", r.account(framesTemplate, w, "template", name)
		},
	}
}

// weigh computes the weights of trees, the templates of t parsed anew
// (every one, for a chart's set; for tpl, its text's), and gives the two
// actions that count their weight to those a template action of them
// names, or, with all (tpl), to every one: a template tpl's text defines
// may replace a chart's that a chart's template action runs. A template
// action naming a template that has none (one of the chart's, which no
// template action of the chart names) counts the callee's weight in the
// caller's: every loop of template actions passes through one that has
// them.
func weigh(t *template.Template, trees []*template.Template, parent *weights, all bool) *weights {
	w := &weights{own: make(map[string]int, len(trees)), parent: parent}
	targets, fresh := map[string]bool{}, make(map[string]bool, len(trees))
	for _, tmpl := range trees {
		collectTargets(tmpl.Root, targets)
		fresh[tmpl.Name()] = true
	}
	hooked := func(name string) bool {
		if fresh[name] {
			return all || targets[name]
		}
		tmpl := t.Lookup(name)
		return tmpl != nil && hasHooks(tmpl)
	}
	callee := func(name string) int {
		if t.Lookup(name) == nil || hooked(name) {
			return 0
		}
		return framesTemplate + parent.get(name) // a chart template: its weight is known
	}
	for _, tmpl := range trees {
		w.own[tmpl.Name()] = framesBase + frames(tmpl.Root, callee)
	}
	for _, tmpl := range trees {
		if all || targets[tmpl.Name()] {
			addHooks(tmpl.Tree, w.own[tmpl.Name()], tmpl.Name())
		}
	}
	return w
}

// parsedAnew are the templates of t with a body that fresh reports as
// parsed anew.
func parsedAnew(t *template.Template, fresh func(*template.Template) bool) []*template.Template {
	var out []*template.Template
	for _, tmpl := range t.Templates() {
		if tmpl.Tree != nil && tmpl.Root != nil && fresh(tmpl) {
			out = append(out, tmpl)
		}
	}
	return out
}

// collectTargets adds the names the template actions under n run.
func collectTargets(n tparse.Node, into map[string]bool) {
	walkNodes(n, func(n tparse.Node) {
		if tn, ok := n.(*tparse.TemplateNode); ok {
			into[tn.Name] = true
		}
	})
}

// checkForged refuses a template of tpl's text (trees) that calls the
// actions addHooks adds, as an unknown function is refused.
func checkForged(trees []*template.Template) error {
	var forged string
	for _, tmpl := range trees {
		walkNodes(tmpl.Root, func(n tparse.Node) {
			if id, ok := n.(*tparse.IdentifierNode); ok && id.Ident == stackFunc {
				forged = id.Ident
			}
		})
	}
	if forged != "" {
		return fmt.Errorf("template: %s: function %q not defined", rootName, forged)
	}
	return nil
}

// hasHooks reports whether tmpl's body starts with the action that counts
// its weight.
func hasHooks(tmpl *template.Template) bool {
	if tmpl.Tree == nil || tmpl.Root == nil || len(tmpl.Root.Nodes) == 0 {
		return false
	}
	a, ok := tmpl.Root.Nodes[0].(*tparse.ActionNode)
	if !ok || len(a.Pipe.Cmds) != 1 || len(a.Pipe.Cmds[0].Args) == 0 {
		return false
	}
	id, ok := a.Pipe.Cmds[0].Args[0].(*tparse.IdentifierNode)
	return ok && id.Ident == stackFunc
}

// addHooks gives the body of the template name its first and last
// actions: {{$_ := stackFunc w name}} and {{$_ := stackFunc -w name}},
// which print nothing.
func addHooks(tree *tparse.Tree, w int, name string) {
	pos := tree.Root.Pos
	action := func(w int) tparse.Node {
		num := &tparse.NumberNode{NodeType: tparse.NodeNumber, Pos: pos, IsInt: true, Int64: int64(w), Text: strconv.Itoa(w)}
		str := &tparse.StringNode{NodeType: tparse.NodeString, Pos: pos, Quoted: strconv.Quote(name), Text: name}
		cmd := &tparse.CommandNode{NodeType: tparse.NodeCommand, Pos: pos, Args: []tparse.Node{tparse.NewIdentifier(stackFunc).SetPos(pos), num, str}}
		decl := &tparse.VariableNode{NodeType: tparse.NodeVariable, Pos: pos, Ident: []string{"$_"}}
		pipe := &tparse.PipeNode{NodeType: tparse.NodePipe, Pos: pos, Decl: []*tparse.VariableNode{decl}, Cmds: []*tparse.CommandNode{cmd}}
		return &tparse.ActionNode{NodeType: tparse.NodeAction, Pos: pos, Pipe: pipe}
	}
	nodes := make([]tparse.Node, 0, len(tree.Root.Nodes)+2)
	nodes = append(nodes, action(w))
	nodes = append(nodes, tree.Root.Nodes...)
	tree.Root.Nodes = append(nodes, action(-w))
}

// frames is the weight of what n runs, below it: framesPerLevel for each
// level its execution nests, and what callee counts for the templates its
// template actions run.
func frames(n tparse.Node, callee func(string) int) int {
	switch n := n.(type) {
	case *tparse.ListNode:
		return maxOf(n.Nodes, callee)
	case *tparse.ActionNode:
		return framesPerLevel + frames(n.Pipe, callee)
	case *tparse.IfNode:
		return framesPerLevel + branch(&n.BranchNode, callee)
	case *tparse.RangeNode:
		return framesPerRange + branch(&n.BranchNode, callee)
	case *tparse.WithNode:
		return framesPerLevel + branch(&n.BranchNode, callee)
	case *tparse.TemplateNode:
		return framesPerLevel + max(frames(n.Pipe, callee), callee(n.Name))
	case *tparse.PipeNode:
		if n == nil {
			return 0
		}
		deepest := 0
		for _, c := range n.Cmds {
			for _, arg := range c.Args {
				deepest = max(deepest, argFrames(arg, callee))
			}
		}
		return deepest
	}
	return 0
}

// argFrames is the weight of an argument of a command: a parenthesized
// pipeline nests one level.
func argFrames(arg tparse.Node, callee func(string) int) int {
	switch a := arg.(type) {
	case *tparse.PipeNode:
		return framesPerLevel + frames(a, callee)
	case *tparse.ChainNode:
		return argFrames(a.Node, callee)
	}
	return 0
}

func branch(b *tparse.BranchNode, callee func(string) int) int {
	n := frames(b.Pipe, callee)
	if b.List != nil {
		n = max(n, frames(b.List, callee))
	}
	if b.ElseList != nil {
		n = max(n, frames(b.ElseList, callee))
	}
	return n
}

func maxOf(nodes []tparse.Node, callee func(string) int) int {
	deepest := 0
	for _, n := range nodes {
		deepest = max(deepest, frames(n, callee))
	}
	return deepest
}

// walkNodes calls fn on n and every node under it.
func walkNodes(n tparse.Node, fn func(tparse.Node)) {
	if n == nil {
		return
	}
	fn(n)
	switch n := n.(type) {
	case *tparse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			walkNodes(c, fn)
		}
	case *tparse.ActionNode:
		walkNodes(n.Pipe, fn)
	case *tparse.IfNode:
		walkBranch(&n.BranchNode, fn)
	case *tparse.RangeNode:
		walkBranch(&n.BranchNode, fn)
	case *tparse.WithNode:
		walkBranch(&n.BranchNode, fn)
	case *tparse.TemplateNode:
		walkNodes(n.Pipe, fn)
	case *tparse.PipeNode:
		if n == nil {
			return
		}
		for _, c := range n.Cmds {
			walkNodes(c, fn)
		}
	case *tparse.CommandNode:
		for _, a := range n.Args {
			walkNodes(a, fn)
		}
	case *tparse.ChainNode:
		walkNodes(n.Node, fn)
	}
}

func walkBranch(b *tparse.BranchNode, fn func(tparse.Node)) {
	walkNodes(b.Pipe, fn)
	if b.List != nil {
		walkNodes(b.List, fn)
	}
	if b.ElseList != nil {
		walkNodes(b.ElseList, fn)
	}
}
