// Placeholder entry, replaced by the webview renderer.
export {};
