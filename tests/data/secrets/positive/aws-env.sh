#!/bin/sh
export AWS_SECRET_ACCESS_KEY=HzM1Gj9givHIQUNthB3oH6xbaf9tb+cnmYL1sPzk
aws s3 ls
