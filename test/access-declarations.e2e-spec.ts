import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { accessOf, kindOf } from '../src/auth/access.decorator';
import { createTestApp, TestApp } from './utils';

/**
 * Every route with the access it declares. A change to access shows up here in review: update the
 * table on purpose, never to make the test pass by accident.
 */
const EXPECTED: Record<string, string> = {
  'POST /login': 'public',
  'POST /logout': 'user.authenticated',
  'GET /version': 'public',
  'GET /health/live': 'public',
  'GET /health/ready': 'public',
  'POST /createProject': 'user.authenticated',
  'GET /project/:projectId': 'project.read(projectId)',
  'GET /projects/owned/:offset/:count': 'user.authenticated',
  'GET /projects/shared/:offset/:count': 'user.authenticated',
  'POST /project/:projectId/delete': 'project.owned(projectId)',
  'POST /project/:projectId/share': 'project.owned(projectId)',
  'POST /project/:projectId/unshare': 'project.owned(projectId)',
  'POST /image/initUpload': 'user.authenticated',
  'POST /image/:taskId/add': 'project.write(taskId)',
  'GET /image/:taskId/commit': 'project.write(taskId)',
  'GET /image/:taskId/status': 'project.read(taskId)',
  'POST /file/:fileId/upload': 'user.authenticated',
  'GET /files/:offset/:count': 'user.authenticated',
  'POST /file/:fileId/delete': 'user.authenticated',
  'POST /file/:fileId/createDataset': 'project.write(body.projectId)',
  'GET /task/:taskId/status': 'project.read(taskId)',
  'GET /dataset/:datasetId': 'project.read(datasetId)',
  'GET /datasets/:projectId/:offset/:count': 'project.read(projectId)',
  'POST /dataset/:datasetId/delete': 'project.write(datasetId)',
  'GET /dataset/:datasetId/features': 'project.read(datasetId)',
  'POST /dataset/:datasetId/changeFeatureTypes': 'project.write(datasetId)',
  'POST /dataset/:datasetId/analyze': 'project.execute(datasetId)',
  'POST /check/dataset/:datasetId/analyze': 'project.execute(datasetId)',
  'GET /analysis/:analysisId': 'project.read(analysisId)',
  'GET /analyses/all/:projectId/:offset/:count': 'project.read(projectId)',
  'GET /analysis/:analysisId/status': 'project.read(analysisId)',
  'GET /analysis/:analysisId/result': 'project.read(analysisId)',
  'GET /analysis/:analysisId/configurations/:offset/:count': 'project.read(analysisId)',
  'GET /analysis/:analysisId/outOfFoldPredictions': 'project.read(analysisId)',
  'GET /analysis/:analysisId/report': 'project.read(analysisId)',
  'GET /analysis/:analysisId/reportLinks/:offset/:count': 'project.read(analysisId)',
  'POST /analysis/:analysisId/reportLink': 'project.read(analysisId)',
  'POST /analysis/:analysisId/reportLink/:linkId/delete': 'project.owned(analysisId)',
  'GET /sharedReport/:token': 'public',
  'POST /analysis/:analysisId/delete': 'project.write(analysisId)',
  'GET /analysis/:analysisId/availablePlots': 'project.write(analysisId)',
  'POST /analysis/:analysisId/availablePlots': 'project.write(analysisId)',
  'GET /analysis/:analysisId/getPlot': 'project.write(analysisId)',
  'POST /analysis/:analysisId/getPlot': 'project.write(analysisId)',
  'GET /analysis/:analysisId/getPlots': 'project.write(analysisId)',
  'POST /analysis/:analysisId/getPlots': 'project.write(analysisId)',
  'POST /analysis/:analysisId/predict/:datasetId': 'project.execute(analysisId) + project.read(datasetId)',
  'GET /prediction/:predictionId/status': 'project.read(predictionId) + project.read(predictionId as predictionDataset)',
  'GET /prediction/:predictionId/result': 'project.read(predictionId) + project.read(predictionId as predictionDataset)',
  'GET /analysis/:analysisId/predictions/:offset/:count': 'project.read(analysisId)',
  'POST /prediction/:predictionId/delete': 'project.write(predictionId)',
  'GET /analysis/:analysisId/model': 'project.read(analysisId)',
  'GET /analysis/:analysisId/modelCard': 'project.read(analysisId)',
  'POST /analysis/:analysisId/score': 'project.execute(analysisId)',
};

function routes(t: TestApp): Record<string, string> {
  const discovery = t.app.get(DiscoveryService, { strict: false });
  const scanner = t.app.get(MetadataScanner, { strict: false });
  const out: Record<string, string> = {};
  for (const wrapper of discovery.getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance || !wrapper.metatype) continue;
    const base = String(Reflect.getMetadata(PATH_METADATA, wrapper.metatype) ?? '').replace(/^\/|\/$/g, '');
    const proto = Object.getPrototypeOf(instance) as Record<string, object>;
    for (const name of scanner.getAllMethodNames(proto)) {
      const handler = proto[name];
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (path === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
      const access = (accessOf(handler) ?? [])
        .map((r) => (r.target ? `${r.permission}(${r.target}${r.kind !== kindOf(r.target) ? ` as ${r.kind}` : ''})` : r.permission))
        .join(' + ');
      for (const p of Array.isArray(path) ? path : [path]) {
        const full = '/' + [base, p.replace(/^\/|\/$/g, '')].filter(Boolean).join('/');
        out[`${method} ${full}`] = access || 'NONE';
      }
    }
  }
  return out;
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('route access declarations', () => {
  it('declares access on every route', () => {
    const undeclared = Object.entries(routes(t)).filter(([, a]) => a === 'NONE');
    expect(undeclared).toEqual([]);
  });

  it('matches the reviewed table of routes and permissions, route for route', () => {
    expect(routes(t)).toEqual(EXPECTED);
  });
});
