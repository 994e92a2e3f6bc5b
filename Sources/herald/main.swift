import ArgumentParser
import HeraldServer
import HeraldClient

print("herald")
