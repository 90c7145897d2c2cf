// Package asks is the bridge by which a program in a sandbox asks the
// person a question of its own: POST http://lnk.sandbox/ask with
// {"question": "...", "details": ["..."]} through the proxy, gated by
// network.endpoints = ["ask"]. The answer is {"answer": "allow"|"deny",
// "via": ..., "reason": ...}. The question goes through the Asker like
// every other (dialog, terminal with a code, queue), its text is shown
// cleaned as the sandbox's own words, and it never offers "always": a
// sandbox cannot make its questions stop being asked.
package asks
