// A mongosh-style session; session.golden is its transcript.
db.users.insertMany([{_id: 1, name: 'ada', age: 36, city: 'London', tags: ['math', 'poetry']}, {_id: 2, name: 'alan', age: 41, city: 'Wilmslow', tags: ['math']}, {_id: 3, name: 'grace', age: NumberLong('9007199254740993'), city: 'New York', born: ISODate('1906-12-09')}])
db.users.insertOne({_id: 4, name: 'edsger', age: 72.5, city: 'Nuenen', score: null,})
show collections
db.users.find({age: {$gt: 40}}, {name: 1}).sort({age: -1}).limit(2)
db.users.find({name: /^A/i}).count()
db.users.find().skip(1).limit(1).toArray()
db.users.findOne({city: 'London'}, {_id: 0, name: 1})
db.users.findOne({name: 'nobody'})
db.users.countDocuments({tags: 'math'})
db.users.estimatedDocumentCount()
db.users.distinct('tags')
db.users.distinct('city', {age: {$lt: 50}})
db.users.find({score: null}, {_id: 1}).toArray()
db.users.find({}, {_id: 1}).map(d => d._id)
let total = 0; db.users.find().forEach(d => { total += 1 }); total
const c = db.users.find({}, {name: 1}).sort({_id: 1}); c.hasNext()
c.next()
db.users.aggregate([{$unwind: '$tags'}, {$group: {_id: '$tags', n: {$sum: 1}}}, {$sort: {_id: 1}}])
db.users.updateOne({_id: 1}, {$inc: {age: 1}, $set: {'address.city': 'London'}}).modifiedCount
db.users.updateMany({tags: 'math'}, {$addToSet: {tags: 'cs'}}).matchedCount
db.users.updateOne({_id: 9}, {$set: {name: 'new'}}, {upsert: true}).upsertedCount
db.users.replaceOne({_id: 9}, {name: 'barbara', age: 85}).modifiedCount
db.users.updateOne({_id: 9}, [{$set: {decade: {$multiply: [{$floor: {$divide: ['$age', 10]}}, 10]}}}]).modifiedCount
db.users.findOne({_id: 9})
db.users.findOneAndUpdate({_id: 2}, {$set: {age: 42}}, {returnDocument: 'after', projection: {age: 1}})
db.users.findOneAndReplace({_id: 9}, {name: 'liskov'})
db.users.findOneAndDelete({_id: 9}, {projection: {name: 1}})
db.users.deleteOne({_id: 4}).deletedCount
db.users.deleteMany({age: {$gt: 1000}}).deletedCount
db.users.createIndex({age: -1, name: 1}, {name: 'age_name'})
db.users.getIndexes().map(i => i.name)
db.users.find({age: {$gt: 30}}).explain().winningPlan.stage
db.users.dropIndex('age_name').ok
db.getCollection('users').find({_id: 1}, {age: 1}).toArray()
db.users.find({_id: 3}, {born: 1, age: 1})
db.users.renameCollection('people').ok
show collections
db.people.countDocuments()
db.users.find()
db.people.drop()
db.getCollectionNames()
db.logs.insertMany(Array.from({length: 25}, (_, i) => ({_id: i, n: i * 2}))).acknowledged
db.logs.find({}, {n: 1})
it
it
use other
db.logs.find({$where: 'true'})
db.logs.updateOne({_id: 1}, {name: 'x'})
db.logs.find({n: {$gtee: 3}})
ObjectId('zz')
for (let i = 0; i < 2; i++) {
  print('line', i,
    {a: i})
}
typeof db.logs.find
db.logs.insertOne({_id: 'evil', s: 'red\u001b[31m alert\u009b2J'}).acknowledged
db.logs.findOne({_id: 'evil'}).s
db.logs.findOne({_id: 'evil'})
help
db.help()
db.logs.help()
db.logs.find().help()
show dbs
show nothing
db.logs.find().sort({n: -1}).limit(2).skip(1)
db.logs.find().limit(1).next().n
const cur = db.logs.find(); cur.next(); cur.sort({n: 1})
db.logs.insertOne({_id: 'evil'})
db.dropDatabase()
db.logs.createIndex({s: 'text'}, {default_langauge: 'spanish'})
db.logs.createIndex({s: 'text'}, {unique: true})
db.logs.createIndex({s: 'text'}, {language_override: 1})
db.logs.createIndex({s: 'text'}, {weights: {s: 'x'}})
db.logs.createIndex({s: 'text', n: 1})
db.logs.createIndex({s: 'text'}, {weights: {s: 2}})
db.logs.createIndex({n: 'text'})
db.logs.getIndexes()
db.logs.insertMany([{_id: 'a', s: 'Red alerts'}, {_id: 'b', s: 'a red and blue alert'}]).insertedIds
db.logs.find({$text: {$search: 'ALERT -blue'}}, {score: {$meta: 'textScore'}})
db.logs.aggregate([{$group: {_id: 'all', docs: {$sum: 1}}}, {$out: 'summary'}])
db.summary.find()
db.logs.aggregate([{$group: {_id: 'all', top: {$max: '$n'}}}, {$merge: {into: 'summary', let: {t: '$top'}, whenMatched: [{$set: {top: '$$t', docs: {$add: ['$docs', 1]}}}], whenNotMatched: 'discard'}}])
db.summary.find()
db.logs.aggregate([{$project: {_id: 1}}, {$merge: {into: 'summary', whenMatched: 'fail', whenNotMatched: 'discard'}}])
db.summary.find({$text: {$search: 'x'}})
db.logs.aggregate([{$out: 'summary'}, {$match: {}}])
Long('12345678901234567890')
NumberLong('9007199254740993').toString()
ObjectId('5f1d7a4b9c8e7d6f5a4b3c2d').getTimestamp()
db.nums.insertOne({_id: 1, a: 1, b: 2.5, c: 2147483648, d: NumberLong(3), e: -0}).acknowledged
db.nums.aggregate([{$project: {a: {$type: '$a'}, b: {$type: '$b'}, c: {$type: '$c'}, d: {$type: '$d'}, e: {$type: '$e'}, i: {$type: '$_id'}}}]).toArray()
db.nums.updateOne({_id: 1}, {$inc: {a: 1}}).modifiedCount
db.nums.findOne({_id: 1}).a + 1
db.nums.aggregate([{$limit: 1}, {$project: {a: {$type: '$a'}}}]).toArray()
