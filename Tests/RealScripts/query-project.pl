#!/usr/bin/perl
# Re-creates the question of Panotools-Script's ptoinfo-gui: a hugin project (a text file), no
# filter, through the shell. Our own text.
use strict;
use warnings;
my $folder = $ENV{FILES} // $ENV{HOME};
my $project = `zenity --file-selection --filename="$folder/" --title="Select hugin .pto project to query"`;
exit 0 if $? != 0;
chomp $project;
print "ptoinfo $project\n";
