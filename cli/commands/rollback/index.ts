import type { Command } from 'commander';
import { channelCommand } from '../../util/channels.ts';

export function registerRollback(program: Command): void {
  channelCommand(program, {
    name: 'rollback',
    channel: 'production',
    description: 'Point production back at an earlier version',
    argument: ['<version>', 'the earlier version number (1.0.0) or build number (#1)'],
  });
}
