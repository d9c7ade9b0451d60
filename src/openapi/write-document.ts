import { NestFactory } from '@nestjs/core';
import * as fs from 'node:fs';
import { AppModule, appControllers } from '../app.module';
import { loadConfig } from '../config/config';
import { buildOpenApiDocument } from './document';
import { API_PREFIX } from '../common/api-prefix';
import { apiRoutes } from './routes';

/**
 * Writes the OpenAPI document the service serves to the file named on the command line (stdout without
 * one), with no database: a preview application reads the decorators and instantiates no provider.
 *   node dist/src/openapi/write-document.js openapi.json
 */
async function main(): Promise<void> {
  const options = { config: loadConfig({}), databaseUrl: 'postgres://preview.invalid/none', http: true };
  const app = await NestFactory.create(AppModule.forRoot(options), { preview: true, logger: false, bodyParser: false });
  app.setGlobalPrefix(API_PREFIX);
  const text = JSON.stringify(buildOpenApiDocument(app, apiRoutes(appControllers())), null, 2) + '\n';
  if (process.argv[2]) fs.writeFileSync(process.argv[2], text);
  else process.stdout.write(text);
  await app.close();
}

main().catch((e: unknown) => {
  process.stderr.write(`could not write the OpenAPI document: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
