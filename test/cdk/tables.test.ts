import { describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { configTable, leadsTable, tables } from '../../shared/dynamodb/tables.ts';
import { resources, synthesize } from './synth.ts';

const { template } = synthesize();
const tableResources = resources(template, 'AWS::DynamoDB::Table');

describe('The DynamoDB tables', () => {
  test('are the two tables of shared/dynamodb/tables.ts, under fixed logical ids so a refactor never replaces one', () => {
    expect(Object.keys(tableResources).sort()).toEqual(tables.map((t) => `${t.id}Table`).sort());
  });

  test.each(tables.map((t) => [t.id, t] as const))('%s has the shared string partition and sort keys', (_id, definition) => {
    expect(tableResources[`${definition.id}Table`]!.Properties).toMatchObject({
      KeySchema: [
        { AttributeName: definition.partitionKey, KeyType: 'HASH' },
        { AttributeName: definition.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: expect.arrayContaining([
        { AttributeName: definition.partitionKey, AttributeType: 'S' },
        { AttributeName: definition.sortKey, AttributeType: 'S' },
      ]),
    });
  });

  test('Leads has the by_reason index of rejection records, every attribute projected, and the by_age index of leads, keys only', () => {
    expect(tableResources.LeadsTable!.Properties!.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'by_reason',
        KeySchema: [
          { AttributeName: 'reason_pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: 'by_age',
        KeySchema: [
          { AttributeName: 'age_pk', KeyType: 'HASH' },
          { AttributeName: 'age_at', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
    expect(tableResources.ConfigTable!.Properties!.GlobalSecondaryIndexes).toBeUndefined();
  });

  test('are on-demand, encrypted with the AWS managed key, recoverable to any point, protected from deletion', () => {
    template.allResourcesProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
      TableName: Match.absent(),
    });
  });

  test('are retained when the stack is deleted or the table replaced', () => {
    template.allResources('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  test('expire Leads items on their TTL attribute, and only Leads', () => {
    expect(tableResources.LeadsTable!.Properties!.TimeToLiveSpecification).toEqual({ AttributeName: leadsTable.timeToLiveAttribute, Enabled: true });
    expect(tableResources.ConfigTable!.Properties!.TimeToLiveSpecification).toBeUndefined();
  });

  test('stream new images of the Leads table, and of no other table', () => {
    expect(tableResources.LeadsTable!.Properties!.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    expect(tableResources.ConfigTable!.Properties!.StreamSpecification).toBeUndefined();
  });

  test('are named by CloudFormation and given as outputs, for the admin CLI', () => {
    template.hasOutput('ConfigTableName', { Value: { Ref: `${configTable.id}Table` } });
    template.hasOutput('LeadsTableName', { Value: { Ref: `${leadsTable.id}Table` } });
  });
});
