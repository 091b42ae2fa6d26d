// Package ops defines the operators rotary dispatches to backends: their argument types, in a
// normalized form every backend kernel accepts, and the checks that turn user tensors into them.
//
// Every check runs before any backend is called, so a kernel may assume valid arguments and a
// failed call never writes.
package ops
