// Thread entry of the SQL reader (execute-ontology-sql.ts): every ontology SQL query's connection,
// statement and result, read here so that their memory is this thread's to collect.
import { serveThreadCalls } from '../../threads/index.ts';
import { readOntologySql } from './read-ontology-sql.ts';

serveThreadCalls(readOntologySql);
