/**
 * A browser can be opened: a desktop session (not a plain SSH or container shell). On Linux the
 * `open` package's xdg-open fails silently after it started, so this is decided beforehand.
 */
export function browserAvailable(env: NodeJS.ProcessEnv): boolean {
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY || env.BROWSER);
}
