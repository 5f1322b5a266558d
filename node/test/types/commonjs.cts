// The CommonJS entry point, type-checked: require() gives the same names.
import tfdisco = require('tfdisco');

const client: tfdisco.Client = new tfdisco.Client({ dialect: 'opentofu' });
const name: string = tfdisco.normalize('Example.COM');
const error: tfdisco.TfdiscoError = new tfdisco.InvalidHostnameError('x');
void [client, name, error];
