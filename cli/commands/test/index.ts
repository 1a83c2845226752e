import type { Command } from 'commander';
import { channelCommand } from '../../util/channels.ts';

export function registerTest(program: Command): void {
  channelCommand(program, {
    name: 'test',
    channel: 'test',
    description: 'Put a version in the test channel (default: the version this folder last uploaded; with --app, the newest upload)',
    argument: ['[version]', 'a version number (1.2.0) or build number (#3)'],
  });
}
