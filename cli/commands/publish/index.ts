import type { Command } from 'commander';
import { channelCommand } from '../../util/channels.ts';

export function registerPublish(program: Command): void {
  channelCommand(program, {
    name: 'publish',
    channel: 'production',
    description: 'Publish a version to production (default: the version in test); it must have been in test',
    argument: ['[version]', 'a version number (1.2.0) or build number (#3)'],
  });
}
