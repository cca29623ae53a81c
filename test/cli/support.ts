// What the command line's lane takes from the shared test launchers, in one place.
import { closedPort } from '../support/loopback';

export { cleanEnv, repoRoot, runProcess, waitFor } from '../launch/util';

/** A loopback URL nothing listens on. */
export async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await closedPort()}`;
}
