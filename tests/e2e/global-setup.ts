import { cli, OPERATOR } from './support/cli';

// Runs after the web server is up: the operator the dashboard tests sign in with.
export default function globalSetup() {
  cli('operators', 'create', '--email', OPERATOR.email, '--password', OPERATOR.password);
}
