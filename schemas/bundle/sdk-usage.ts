// Deploy-time check that every SDK a bundle loads is registered in manifest.sdk. The SDK is
// served by the platform at absolute paths: /developer/sdk/v1/<name>.js per SDK (legacy names
// such as data.js count as the SDK they normalize to) and /developer/sdk/v1/ui.css for `ui`.

import { isAcceptedSdkName, normalizeSdkName, SDK_NAMES, type SdkName } from '../manifest/sdk.ts';
import { formatPath, type Problem, quoted } from '../problems.ts';
import type { FileAnalysis } from './analyze.ts';
import { fileProblem } from './file-problem.ts';

export const SDK_BASE_PATH = '/developer/sdk/v1/';
const UI_STYLESHEET = 'ui.css';

// Absolute path, optionally on an explicit origin (https://host/ or //host/), with any query.
// Linear: anchored, and each repeated part is followed by a character it cannot contain
// (scheme then `:`, host then `/`, file then `?`, `#` or the end), so it matches one way only.
const SDK_REFERENCE = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?(?:\/\/[^/?#]*)?\/developer\/sdk\/v1\/([^/?#]+)(?:[?#].*)?$/;

/** The SDK a reference loads: undefined if it is no SDK path, `sdk: undefined` if no such SDK exists. */
export function sdkOfReference(reference: string): { file: string; sdk: SdkName | undefined } | undefined {
  const file = SDK_REFERENCE.exec(reference)?.[1];
  if (file === undefined) return undefined;
  if (file === UI_STYLESHEET) return { file, sdk: 'ui' };
  const name = /^([a-z]+)\.js$/.exec(file)?.[1];
  return { file, sdk: name !== undefined && isAcceptedSdkName(name) ? normalizeSdkName(name) : undefined };
}

/**
 * SDKs the bundle uses, and a problem for each (file, SDK) that is used but not registered or
 * does not exist. Without `registered` (manifest.sdk itself invalid) only unknown SDKs are reported.
 */
export function checkSdkUsage(
  analyses: readonly FileAnalysis[],
  registered: readonly SdkName[] | undefined,
): { sdkUsed: SdkName[]; problems: Problem[] } {
  const used = new Set<SdkName>();
  const problems: Problem[] = [];
  for (const { file, references } of analyses) {
    // One problem per file and SDK (data.js and semantic.js are the same SDK).
    const seen = new Set<string>();
    for (const reference of references) {
      const found = sdkOfReference(reference);
      if (found === undefined || seen.has(found.sdk ?? found.file)) continue;
      seen.add(found.sdk ?? found.file);
      if (found.sdk === undefined) {
        problems.push(
          fileProblem(
            file.index,
            'content',
            'sdk_unknown',
            `${file.path} loads ${quoted(SDK_BASE_PATH + found.file)}, which is not an SDK (known: ${SDK_NAMES.join(', ')})`,
          ),
        );
        continue;
      }
      used.add(found.sdk);
      if (registered !== undefined && !registered.includes(found.sdk)) {
        problems.push(
          fileProblem(
            file.index,
            'content',
            'sdk_unregistered',
            `${file.path} uses SDK "${found.sdk}" (${SDK_BASE_PATH}${found.file}) but ${formatPath('manifest', ['sdk'])} does not register it`,
          ),
        );
      }
    }
  }
  return { sdkUsed: SDK_NAMES.filter((name) => used.has(name)), problems };
}
