provider "aws" {
  region     = "us-west-2"
  access_key = "AKIAZ2FAKE7KEYQ2ID3C"
  secret_key = "Zq3FAKEsecret/Key+Value0123456789abcdTFQ"
}
