package shell

const helpShell = `omgdb shell: mongosh's language over one store file (omgdb docs shell)

  show collections       the store's collections (also: show tables)
  show dbs               the store file and its size
  use <name>             does not apply: a store is one file (start omgdb shell <file>)
  db.<coll>.help()       a collection's methods
  db.help()              db's methods
  db.<coll>.find().help() a cursor's methods
  it                     the next batch of the last printed cursor
  print(x), printjson(x) print values
  load('file.js')        run a script
  exit, quit             leave (also Ctrl-D, or Ctrl-C twice at an empty prompt)

Every write prints its change id: omgdb rollback <store> <id> undoes it.
`

const helpDB = `db methods:
  db.<coll> / db.getCollection(name)   a collection
  db.getCollectionNames()              the collections' names
  db.createCollection(name)            an empty collection (one change)
  db.getName()                         the store's path
  db.stats()                           collections, documents, file size
`

const helpCollection = `collection methods (as mongosh):
  find(filter, projection)             a cursor: .sort() .limit() .skip() .toArray() ...
  findOne(filter, projection)          the first match, or null
  countDocuments(filter), estimatedDocumentCount()
  distinct(field, filter)              distinct values, array elements one by one
  aggregate([stages])                  a cursor over the pipeline's result ($out/$merge: one change)
  insertOne(doc), insertMany([docs])
  updateOne(filter, update, {upsert, arrayFilters, sort})
  updateMany(filter, update, {upsert, arrayFilters})
  replaceOne(filter, doc, {upsert})
  deleteOne(filter), deleteMany(filter)
  findOneAndUpdate / findOneAndReplace(filter, update, {returnDocument: 'after', sort, projection, upsert})
  findOneAndDelete(filter, {sort, projection})
  bulkWrite([{insertOne: {document}}, {updateOne: {filter, update, upsert}}, {deleteMany: {filter}}, …], {ordered})
  createIndex({field: 1} or {field: 'text'}, {unique, sparse, name, weights…}), getIndexes(), dropIndex(name or keys)
  createIndexes([keys…], {unique, sparse}), dropIndexes(name, [names] or nothing for all but _id_)
  drop(), renameCollection(newName, dropTarget)
  explain().find(filter)               the query plan
Each write is one journaled change; its result carries changeId.
`

const helpCursor = `cursor methods:
  sort(spec) limit(n) skip(n) projection(spec)   set before reading
  collation({locale: 'en', strength: 2})         compare strings by a collation
  toArray() forEach(fn) map(fn) hasNext() next() tryNext()
  count() itcount() size() explain('executionStats') close()
`
