// Package nodelab holds the tests whose claims are about Nodes, Pods or
// what is reachable from where: they run on a lab whose clusters each have
// a Node in a network namespace of their own (lab.Options.Nodes). The rest
// of the tests keep the bare control planes, which start faster.
package nodelab
