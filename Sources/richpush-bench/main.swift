import RichPush

print("richpush-bench \(RichPush.version)")
