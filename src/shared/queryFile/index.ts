// Query files (`*.aq.md`): the parser, the `expect:` checks, cases and judges, for the extension
// host's CodeLens, diagnostics and Testing view (and the command line's engine).
export * from './parse';
export * from './expect';
export * from './size';
export * from './cases';
export * from './judge';
export * from './placeholders';
