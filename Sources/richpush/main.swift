import RichPush

print("richpush \(RichPush.version)")
