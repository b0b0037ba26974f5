import { Option, type Command } from 'commander';
import { CLI_ACTOR } from '../../../server/domain/actor';
import { OPERATOR_ROLES, type OperatorRole } from '../../../server/contract/dashboard/roles';
import { readSecretFromStdin } from '../read-secret';
import { output, withDb } from './context';

// `cli operators`: create dashboard operators, set their role, disable and enable them.

export function addOperatorCommands(program: Command): void {
  const operators = program.command('operators').description('Manage dashboard operators');
  addCreate(operators);
  addSetRole(operators);
  addDisableAndEnable(operators);
}

function addCreate(operators: Command): void {
  operators
    .command('create')
    .description(
      'Create an operator who can sign in to the dashboard; the password is read from standard input (typed without echo, or piped)',
    )
    .requiredOption('--email <email>', 'e-mail address (the login)')
    .option('--password <password>', 'password, 12 to 200 characters (shown in the process list: prefer standard input)')
    .addOption(
      new Option('--role <role>', 'owner, admin or viewer (default: owner for the first operator, viewer after)').choices(OPERATOR_ROLES),
    )
    .option('--name <name>', 'display name')
    .option('--json', 'print {"id","email","role"}')
    .action(async (options: { email: string; password?: string; role?: OperatorRole; name?: string; json?: boolean }) => {
      if (options.password !== undefined) {
        process.stderr.write('warning: --password shows the password in the process list; pipe it on standard input instead\n');
      }
      const password = options.password ?? (await readSecretFromStdin(`Password for ${options.email} (not shown): `));
      await withDb(async (_prisma, sqlDb) => {
        const { createOperator } = await import('../../../server/domain/operators/create-operator');
        const operator = await createOperator(sqlDb, CLI_ACTOR, { ...options, password });
        output(Boolean(options.json), operator, () => `operator ${operator.email} created (${operator.id}), role ${operator.role}`);
      });
    });
}

function addSetRole(operators: Command): void {
  operators
    .command('set-role')
    .description("Change an operator's role; the last enabled owner keeps theirs")
    .requiredOption('--email <email>', "the operator's e-mail address")
    .addOption(new Option('--role <role>', 'owner, admin or viewer').choices(OPERATOR_ROLES).makeOptionMandatory())
    .option('--json', 'print {"id","email","role"}')
    .action((options: { email: string; role: OperatorRole; json?: boolean }) =>
      withDb(async (_prisma, sqlDb) => {
        const { setOperatorRole } = await import('../../../server/domain/operators/manage-operators');
        const operator = await setOperatorRole(sqlDb, CLI_ACTOR, options);
        output(Boolean(options.json), operator, () => `operator ${operator.email}: role ${operator.role}`);
      }),
    );
}

function addDisableAndEnable(operators: Command): void {
  for (const [name, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    operators
      .command(name)
      .description(
        disabled
          ? 'Stop an operator signing in to the dashboard; their open sessions end at once'
          : 'Let a disabled operator sign in again',
      )
      .requiredOption('--email <email>', "the operator's e-mail address")
      .option('--json', 'print {"id","email","disabled","sessions_ended"}')
      .action((options: { email: string; json?: boolean }) =>
        withDb(async (_prisma, sqlDb) => {
          const { setOperatorDisabled } = await import('../../../server/domain/operators/disable-operator');
          const access = await setOperatorDisabled(sqlDb, CLI_ACTOR, options.email, disabled);
          output(
            Boolean(options.json),
            access,
            () => `operator ${access.email} ${disabled ? `disabled (${access.sessions_ended} session(s) ended)` : 'enabled'}`,
          );
        }),
      );
  }
}
