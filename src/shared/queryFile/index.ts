// Query files (`*.aq.md`): the parser and the `expect:` checks, for the extension host's
// CodeLens, diagnostics and Testing view.
export * from './parse';
export * from './expect';
export * from './size';
